// Parallel I/O (MPI-4.0 chapter 14): mpi::file_view (non-owning) and mpi::file (owning:
// MPI_File_close in its destructor, never after MPI_Finalize), with
//   management   file::open, close, file::delete_, get_size set_size preallocate sync,
//                get_group get_amode get_info set_info, get/set_atomicity, get_type_extent,
//   views        set_view, get_view (an mpi::file_layout), get_byte_offset,
//   data access  read/write at an explicit offset (_at), at the individual file pointer and at
//                the shared one (_shared, _ordered); independent or collective (_all,
//                _at_all, _ordered); blocking (returning the status), nonblocking (i...,
//                returning mpi::request) or split collective (_begin / _end),
//   pointers     seek get_position seek_shared get_position_shared,
//   errors       set/get_errhandler, file::set_default_errhandler / default_errhandler.
// Buffers are core buffers (buffer.hpp); offsets and sizes are MPI_Offset, in etypes of the
// current view for offsets and positions, in bytes for sizes.
#pragma once

#include <mpi/buffer.hpp>
#include <mpi/datatype.hpp>
#include <mpi/errhandler.hpp>
#include <mpi/group.hpp>
#include <mpi/info.hpp>
#include <mpi/large_count.hpp>
#include <mpi/object.hpp>
#include <mpi/request.hpp>
#include <mpi/status.hpp>

#include <string>
#include <string_view>
#include <utility>

namespace mpi {

namespace detail {
struct file_kind {
  using native_type = MPI_File;
  static MPI_File null() noexcept { return MPI_FILE_NULL; }
  static bool is_predefined(MPI_File) noexcept { return false; }
  // Collective over the file's group, like MPI_Win_free for a window.
  static int free(MPI_File* h) noexcept { return MPI_File_close(h); }
  static constexpr char const* free_name = "MPI_File_close";
};
}  // namespace detail

// The access mode of file::open: MPI_MODE_* bits, or-ed with |. A type of its own so that
// an amode cannot be passed where an RMA assert (also MPI_MODE_*, plain ints) is taken, nor
// the other way round.
class access_mode {
public:
  constexpr explicit access_mode(int bits) noexcept : bits_(bits) {}
  constexpr int bits() const noexcept { return bits_; }
  // Whether every bit of `m` is set here.
  constexpr bool has(access_mode m) const noexcept { return (bits_ & m.bits_) == m.bits_; }
  friend constexpr access_mode operator|(access_mode a, access_mode b) noexcept {
    return access_mode(a.bits_ | b.bits_);
  }
  friend constexpr bool operator==(access_mode, access_mode) noexcept = default;

private:
  int bits_;
};
inline constexpr access_mode mode_rdonly{MPI_MODE_RDONLY};
inline constexpr access_mode mode_wronly{MPI_MODE_WRONLY};
inline constexpr access_mode mode_rdwr{MPI_MODE_RDWR};
inline constexpr access_mode mode_create{MPI_MODE_CREATE};
inline constexpr access_mode mode_excl{MPI_MODE_EXCL};
inline constexpr access_mode mode_delete_on_close{MPI_MODE_DELETE_ON_CLOSE};
inline constexpr access_mode mode_unique_open{MPI_MODE_UNIQUE_OPEN};
inline constexpr access_mode mode_sequential{MPI_MODE_SEQUENTIAL};
inline constexpr access_mode mode_append{MPI_MODE_APPEND};

template <class D>
class file_ops;

// The whence of seek and seek_shared (MPI_SEEK_SET / CUR / END).
enum class seek_from { set, cur, end };

// A file's view, as get_view returns it. The datatypes are MPI's copies: derived ones are
// freed with this object (MPI_File_get_view hands out new handles for them), predefined ones
// are the predefined handles themselves, comparable to MPI_INT. Not named file_view: that
// is the non-owning file handle, as every kind's X_view is.
class file_layout {
public:
  MPI_Offset disp() const noexcept { return disp_; }
  datatype_view etype() const noexcept { return etype_; }
  datatype_view filetype() const noexcept { return filetype_; }
  std::string const& datarep() const noexcept { return datarep_; }

private:
  template <class D>
  friend class file_ops;
  file_layout(MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype, std::string datarep)
      : disp_(disp), etype_(etype), filetype_(filetype), datarep_(std::move(datarep)),
        owned_etype_(adopt(etype)), owned_filetype_(adopt(filetype)) {}
  static datatype adopt(MPI_Datatype t) {
    int ni = 0, na = 0, nd = 0, combiner = 0;
    MPI_CXX_CALL(MPI_Type_get_envelope, t, &ni, &na, &nd, &combiner);
    return combiner == MPI_COMBINER_NAMED ? datatype{} : datatype::from_native(t);
  }
  MPI_Offset disp_;
  datatype_view etype_;
  datatype_view filetype_;
  std::string datarep_;
  datatype owned_etype_;
  datatype owned_filetype_;
};

class file;
class file_view;

namespace detail {

// The C bindings of each data access: blocking (with a status) and nonblocking (with a
// request). MPI has no persistent I/O and no nonblocking ordered access: those slots are
// never called.
inline constexpr auto file_read_forms = forms{MPI_CXX_COUNTED_FN(MPI_File_read), MPI_CXX_COUNTED_FN(MPI_File_iread),
                                              MPI_CXX_MISSING_FN(MPI_File_read_init)};
inline constexpr auto file_write_forms = forms{
    MPI_CXX_COUNTED_FN(MPI_File_write), MPI_CXX_COUNTED_FN(MPI_File_iwrite), MPI_CXX_MISSING_FN(MPI_File_write_init)};
inline constexpr auto file_read_at_forms = forms{MPI_CXX_COUNTED_FN(MPI_File_read_at),
                                                 MPI_CXX_COUNTED_FN(MPI_File_iread_at),
                                                 MPI_CXX_MISSING_FN(MPI_File_read_at_init)};
inline constexpr auto file_write_at_forms = forms{MPI_CXX_COUNTED_FN(MPI_File_write_at),
                                                  MPI_CXX_COUNTED_FN(MPI_File_iwrite_at),
                                                  MPI_CXX_MISSING_FN(MPI_File_write_at_init)};
inline constexpr auto file_read_shared_forms = forms{MPI_CXX_COUNTED_FN(MPI_File_read_shared),
                                                     MPI_CXX_COUNTED_FN(MPI_File_iread_shared),
                                                     MPI_CXX_MISSING_FN(MPI_File_read_shared_init)};
inline constexpr auto file_write_shared_forms = forms{MPI_CXX_COUNTED_FN(MPI_File_write_shared),
                                                      MPI_CXX_COUNTED_FN(MPI_File_iwrite_shared),
                                                      MPI_CXX_MISSING_FN(MPI_File_write_shared_init)};
inline constexpr auto file_read_all_forms = forms{MPI_CXX_COUNTED_FN(MPI_File_read_all),
                                                  MPI_CXX_COUNTED_FN(MPI_File_iread_all),
                                                  MPI_CXX_MISSING_FN(MPI_File_read_all_init)};
inline constexpr auto file_write_all_forms = forms{MPI_CXX_COUNTED_FN(MPI_File_write_all),
                                                   MPI_CXX_COUNTED_FN(MPI_File_iwrite_all),
                                                   MPI_CXX_MISSING_FN(MPI_File_write_all_init)};
inline constexpr auto file_read_at_all_forms = forms{MPI_CXX_COUNTED_FN(MPI_File_read_at_all),
                                                     MPI_CXX_COUNTED_FN(MPI_File_iread_at_all),
                                                     MPI_CXX_MISSING_FN(MPI_File_read_at_all_init)};
inline constexpr auto file_write_at_all_forms = forms{MPI_CXX_COUNTED_FN(MPI_File_write_at_all),
                                                      MPI_CXX_COUNTED_FN(MPI_File_iwrite_at_all),
                                                      MPI_CXX_MISSING_FN(MPI_File_write_at_all_init)};
inline constexpr auto file_read_ordered_forms = forms{MPI_CXX_COUNTED_FN(MPI_File_read_ordered),
                                                      MPI_CXX_MISSING_FN(MPI_File_iread_ordered),
                                                      MPI_CXX_MISSING_FN(MPI_File_read_ordered_init)};
inline constexpr auto file_write_ordered_forms = forms{MPI_CXX_COUNTED_FN(MPI_File_write_ordered),
                                                       MPI_CXX_MISSING_FN(MPI_File_iwrite_ordered),
                                                       MPI_CXX_MISSING_FN(MPI_File_write_ordered_init)};

// Every data access: (fh, [offset,] buf, count, datatype), then the status or the request.
template <mode M, class F, class B, class... Offset>
auto file_access(F const& f, MPI_Status* st, MPI_File fh, B& b, Offset... offset) {
  return invoke<M>(f, recv_tail{st}, fh, offset..., mpi::ptr(b), count_arg(b, f.template name<M>()), type_of(b));
}
// The _begin of a split collective: the same leading arguments, nothing after.
template <class F, class B, class... Offset>
void file_begin(F const& f, MPI_File fh, B& b, Offset... offset) {
  call_with(f, fh, offset..., mpi::ptr(b), count_arg(b, f.name), type_of(b));
}

inline int to_whence(seek_from w) noexcept {
  if (w == seek_from::cur) return MPI_SEEK_CUR;
  if (w == seek_from::end) return MPI_SEEK_END;
  return MPI_SEEK_SET;
}

}  // namespace detail

// Every operation of an open file, on the view and the owner alike. Blocking accesses take
// any buffer and return the status (its count(type) is what was read or written; a read
// that meets the end of the file reads less), or fill one passed last (status_out). The
// nonblocking and split collective _begin calls take buffers only if their storage outlives
// the call (buffer_outlives_call, buffer.hpp): MPI reads or writes them until the request
// completes or the matching _end returns. An _end takes the buffer its _begin was given.
template <class D>
class file_ops {
  MPI_File h() const noexcept { return static_cast<D const&>(*this).native(); }

public:
  // --- Explicit offsets (in etypes of the view, from its displacement) ---
  template <recv_buffer B, detail::status_out St>
  void read_at(MPI_Offset offset, B&& buf, St&& st) const {
    detail::file_access<detail::mode::blocking>(detail::file_read_at_forms, detail::status_ptr(st), h(), buf, offset);
  }
  template <recv_buffer B>
  status read_at(MPI_Offset offset, B&& buf) const {
    return detail::returned([&](status& st) MPI_CXX_ALWAYS_INLINE_LAMBDA { read_at(offset, buf, st); });
  }
  template <send_buffer B, detail::status_out St>
  void write_at(MPI_Offset offset, B&& buf, St&& st) const {
    detail::file_access<detail::mode::blocking>(detail::file_write_at_forms, detail::status_ptr(st), h(), buf, offset);
  }
  template <send_buffer B>
  status write_at(MPI_Offset offset, B&& buf) const {
    return detail::returned([&](status& st) MPI_CXX_ALWAYS_INLINE_LAMBDA { write_at(offset, buf, st); });
  }
  template <recv_buffer B>
    requires buffer_outlives_call<B>
  [[nodiscard]] request iread_at(MPI_Offset offset, B&& buf) const {
    return detail::file_access<detail::mode::nonblocking>(detail::file_read_at_forms, nullptr, h(), buf, offset);
  }
  template <send_buffer B>
    requires buffer_outlives_call<B>
  [[nodiscard]] request iwrite_at(MPI_Offset offset, B&& buf) const {
    return detail::file_access<detail::mode::nonblocking>(detail::file_write_at_forms, nullptr, h(), buf, offset);
  }
  // Collective.
  template <recv_buffer B, detail::status_out St>
  void read_at_all(MPI_Offset offset, B&& buf, St&& st) const {
    detail::file_access<detail::mode::blocking>(detail::file_read_at_all_forms, detail::status_ptr(st), h(), buf,
                                                offset);
  }
  template <recv_buffer B>
  status read_at_all(MPI_Offset offset, B&& buf) const {
    return detail::returned([&](status& st) MPI_CXX_ALWAYS_INLINE_LAMBDA { read_at_all(offset, buf, st); });
  }
  template <send_buffer B, detail::status_out St>
  void write_at_all(MPI_Offset offset, B&& buf, St&& st) const {
    detail::file_access<detail::mode::blocking>(detail::file_write_at_all_forms, detail::status_ptr(st), h(), buf,
                                                offset);
  }
  template <send_buffer B>
  status write_at_all(MPI_Offset offset, B&& buf) const {
    return detail::returned([&](status& st) MPI_CXX_ALWAYS_INLINE_LAMBDA { write_at_all(offset, buf, st); });
  }
  template <recv_buffer B>
    requires buffer_outlives_call<B>
  [[nodiscard]] request iread_at_all(MPI_Offset offset, B&& buf) const {
    return detail::file_access<detail::mode::nonblocking>(detail::file_read_at_all_forms, nullptr, h(), buf, offset);
  }
  template <send_buffer B>
    requires buffer_outlives_call<B>
  [[nodiscard]] request iwrite_at_all(MPI_Offset offset, B&& buf) const {
    return detail::file_access<detail::mode::nonblocking>(detail::file_write_at_all_forms, nullptr, h(), buf, offset);
  }
  template <recv_buffer B>
    requires buffer_outlives_call<B>
  void read_at_all_begin(MPI_Offset offset, B&& buf) const {
    detail::file_begin(MPI_CXX_COUNTED_FN(MPI_File_read_at_all_begin), h(), buf, offset);
  }
  template <recv_buffer B, detail::status_out St>
  void read_at_all_end(B&& buf, St&& st) const {
    MPI_CXX_CALL(MPI_File_read_at_all_end, h(), mpi::ptr(buf), detail::status_ptr(st));
  }
  template <recv_buffer B>
  status read_at_all_end(B&& buf) const {
    return detail::returned([&](status& st) MPI_CXX_ALWAYS_INLINE_LAMBDA { read_at_all_end(buf, st); });
  }
  template <send_buffer B>
    requires buffer_outlives_call<B>
  void write_at_all_begin(MPI_Offset offset, B&& buf) const {
    detail::file_begin(MPI_CXX_COUNTED_FN(MPI_File_write_at_all_begin), h(), buf, offset);
  }
  template <send_buffer B, detail::status_out St>
  void write_at_all_end(B&& buf, St&& st) const {
    MPI_CXX_CALL(MPI_File_write_at_all_end, h(), mpi::ptr(buf), detail::status_ptr(st));
  }
  template <send_buffer B>
  status write_at_all_end(B&& buf) const {
    return detail::returned([&](status& st) MPI_CXX_ALWAYS_INLINE_LAMBDA { write_at_all_end(buf, st); });
  }

  // --- The individual file pointer (this process's, advanced by what it accesses) ---
  template <recv_buffer B, detail::status_out St>
  void read(B&& buf, St&& st) const {
    detail::file_access<detail::mode::blocking>(detail::file_read_forms, detail::status_ptr(st), h(), buf);
  }
  template <recv_buffer B>
  status read(B&& buf) const {
    return detail::returned([&](status& st) MPI_CXX_ALWAYS_INLINE_LAMBDA { read(buf, st); });
  }
  template <send_buffer B, detail::status_out St>
  void write(B&& buf, St&& st) const {
    detail::file_access<detail::mode::blocking>(detail::file_write_forms, detail::status_ptr(st), h(), buf);
  }
  template <send_buffer B>
  status write(B&& buf) const {
    return detail::returned([&](status& st) MPI_CXX_ALWAYS_INLINE_LAMBDA { write(buf, st); });
  }
  template <recv_buffer B>
    requires buffer_outlives_call<B>
  [[nodiscard]] request iread(B&& buf) const {
    return detail::file_access<detail::mode::nonblocking>(detail::file_read_forms, nullptr, h(), buf);
  }
  template <send_buffer B>
    requires buffer_outlives_call<B>
  [[nodiscard]] request iwrite(B&& buf) const {
    return detail::file_access<detail::mode::nonblocking>(detail::file_write_forms, nullptr, h(), buf);
  }
  // Collective.
  template <recv_buffer B, detail::status_out St>
  void read_all(B&& buf, St&& st) const {
    detail::file_access<detail::mode::blocking>(detail::file_read_all_forms, detail::status_ptr(st), h(), buf);
  }
  template <recv_buffer B>
  status read_all(B&& buf) const {
    return detail::returned([&](status& st) MPI_CXX_ALWAYS_INLINE_LAMBDA { read_all(buf, st); });
  }
  template <send_buffer B, detail::status_out St>
  void write_all(B&& buf, St&& st) const {
    detail::file_access<detail::mode::blocking>(detail::file_write_all_forms, detail::status_ptr(st), h(), buf);
  }
  template <send_buffer B>
  status write_all(B&& buf) const {
    return detail::returned([&](status& st) MPI_CXX_ALWAYS_INLINE_LAMBDA { write_all(buf, st); });
  }
  template <recv_buffer B>
    requires buffer_outlives_call<B>
  [[nodiscard]] request iread_all(B&& buf) const {
    return detail::file_access<detail::mode::nonblocking>(detail::file_read_all_forms, nullptr, h(), buf);
  }
  template <send_buffer B>
    requires buffer_outlives_call<B>
  [[nodiscard]] request iwrite_all(B&& buf) const {
    return detail::file_access<detail::mode::nonblocking>(detail::file_write_all_forms, nullptr, h(), buf);
  }
  template <recv_buffer B>
    requires buffer_outlives_call<B>
  void read_all_begin(B&& buf) const {
    detail::file_begin(MPI_CXX_COUNTED_FN(MPI_File_read_all_begin), h(), buf);
  }
  template <recv_buffer B, detail::status_out St>
  void read_all_end(B&& buf, St&& st) const {
    MPI_CXX_CALL(MPI_File_read_all_end, h(), mpi::ptr(buf), detail::status_ptr(st));
  }
  template <recv_buffer B>
  status read_all_end(B&& buf) const {
    return detail::returned([&](status& st) MPI_CXX_ALWAYS_INLINE_LAMBDA { read_all_end(buf, st); });
  }
  template <send_buffer B>
    requires buffer_outlives_call<B>
  void write_all_begin(B&& buf) const {
    detail::file_begin(MPI_CXX_COUNTED_FN(MPI_File_write_all_begin), h(), buf);
  }
  template <send_buffer B, detail::status_out St>
  void write_all_end(B&& buf, St&& st) const {
    MPI_CXX_CALL(MPI_File_write_all_end, h(), mpi::ptr(buf), detail::status_ptr(st));
  }
  template <send_buffer B>
  status write_all_end(B&& buf) const {
    return detail::returned([&](status& st) MPI_CXX_ALWAYS_INLINE_LAMBDA { write_all_end(buf, st); });
  }

  // --- The shared file pointer (one per open file, advanced by every process's access) ---
  // Independent: the processes' accesses follow each other in an unspecified order.
  template <recv_buffer B, detail::status_out St>
  void read_shared(B&& buf, St&& st) const {
    detail::file_access<detail::mode::blocking>(detail::file_read_shared_forms, detail::status_ptr(st), h(), buf);
  }
  template <recv_buffer B>
  status read_shared(B&& buf) const {
    return detail::returned([&](status& st) MPI_CXX_ALWAYS_INLINE_LAMBDA { read_shared(buf, st); });
  }
  template <send_buffer B, detail::status_out St>
  void write_shared(B&& buf, St&& st) const {
    detail::file_access<detail::mode::blocking>(detail::file_write_shared_forms, detail::status_ptr(st), h(), buf);
  }
  template <send_buffer B>
  status write_shared(B&& buf) const {
    return detail::returned([&](status& st) MPI_CXX_ALWAYS_INLINE_LAMBDA { write_shared(buf, st); });
  }
  template <recv_buffer B>
    requires buffer_outlives_call<B>
  [[nodiscard]] request iread_shared(B&& buf) const {
    return detail::file_access<detail::mode::nonblocking>(detail::file_read_shared_forms, nullptr, h(), buf);
  }
  template <send_buffer B>
    requires buffer_outlives_call<B>
  [[nodiscard]] request iwrite_shared(B&& buf) const {
    return detail::file_access<detail::mode::nonblocking>(detail::file_write_shared_forms, nullptr, h(), buf);
  }
  // Collective: the processes' accesses follow each other in rank order.
  template <recv_buffer B, detail::status_out St>
  void read_ordered(B&& buf, St&& st) const {
    detail::file_access<detail::mode::blocking>(detail::file_read_ordered_forms, detail::status_ptr(st), h(), buf);
  }
  template <recv_buffer B>
  status read_ordered(B&& buf) const {
    return detail::returned([&](status& st) MPI_CXX_ALWAYS_INLINE_LAMBDA { read_ordered(buf, st); });
  }
  template <send_buffer B, detail::status_out St>
  void write_ordered(B&& buf, St&& st) const {
    detail::file_access<detail::mode::blocking>(detail::file_write_ordered_forms, detail::status_ptr(st), h(), buf);
  }
  template <send_buffer B>
  status write_ordered(B&& buf) const {
    return detail::returned([&](status& st) MPI_CXX_ALWAYS_INLINE_LAMBDA { write_ordered(buf, st); });
  }
  template <recv_buffer B>
    requires buffer_outlives_call<B>
  void read_ordered_begin(B&& buf) const {
    detail::file_begin(MPI_CXX_COUNTED_FN(MPI_File_read_ordered_begin), h(), buf);
  }
  template <recv_buffer B, detail::status_out St>
  void read_ordered_end(B&& buf, St&& st) const {
    MPI_CXX_CALL(MPI_File_read_ordered_end, h(), mpi::ptr(buf), detail::status_ptr(st));
  }
  template <recv_buffer B>
  status read_ordered_end(B&& buf) const {
    return detail::returned([&](status& st) MPI_CXX_ALWAYS_INLINE_LAMBDA { read_ordered_end(buf, st); });
  }
  template <send_buffer B>
    requires buffer_outlives_call<B>
  void write_ordered_begin(B&& buf) const {
    detail::file_begin(MPI_CXX_COUNTED_FN(MPI_File_write_ordered_begin), h(), buf);
  }
  template <send_buffer B, detail::status_out St>
  void write_ordered_end(B&& buf, St&& st) const {
    MPI_CXX_CALL(MPI_File_write_ordered_end, h(), mpi::ptr(buf), detail::status_ptr(st));
  }
  template <send_buffer B>
  status write_ordered_end(B&& buf) const {
    return detail::returned([&](status& st) MPI_CXX_ALWAYS_INLINE_LAMBDA { write_ordered_end(buf, st); });
  }

  // --- File pointers (in etypes of the current view) ---
  void seek(MPI_Offset offset, seek_from whence = seek_from::set) const {
    MPI_CXX_CALL(MPI_File_seek, h(), offset, detail::to_whence(whence));
  }
  MPI_Offset get_position() const {
    MPI_Offset o = 0;
    MPI_CXX_CALL(MPI_File_get_position, h(), &o);
    return o;
  }
  // Collective: every process gives the same offset and whence.
  void seek_shared(MPI_Offset offset, seek_from whence = seek_from::set) const {
    MPI_CXX_CALL(MPI_File_seek_shared, h(), offset, detail::to_whence(whence));
  }
  MPI_Offset get_position_shared() const {
    MPI_Offset o = 0;
    MPI_CXX_CALL(MPI_File_get_position_shared, h(), &o);
    return o;
  }
  // The absolute byte position in the file of `offset` etypes into the view.
  MPI_Offset get_byte_offset(MPI_Offset offset) const {
    MPI_Offset disp = 0;
    MPI_CXX_CALL(MPI_File_get_byte_offset, h(), offset, &disp);
    return disp;
  }

  // --- Views ---
  // Collective. Resets both file pointers to zero. `datarep`: "native", "internal",
  // "external32" (what the MPI supports of them) or a registered representation.
  template <datatype_handle E, datatype_handle F, info_handle I = info_null_t>
  void set_view(MPI_Offset disp, E const& etype, F const& filetype, std::string_view datarep = "native",
                I const& info = I{}) const {
    MPI_CXX_CALL(MPI_File_set_view, h(), disp, detail::to_datatype(etype), detail::to_datatype(filetype),
                 detail::c_string(datarep), mpi::handle(info));
  }
  file_layout get_view() const {
    MPI_Offset disp = 0;
    MPI_Datatype etype = MPI_DATATYPE_NULL, filetype = MPI_DATATYPE_NULL;
    char rep[MPI_MAX_DATAREP_STRING + 1] = {};
    MPI_CXX_CALL(MPI_File_get_view, h(), &disp, &etype, &filetype, rep);
    return file_layout(disp, etype, filetype, rep);
  }
  // The extent of `type` in the file's data representation (that of the current view).
  template <datatype_handle T>
  MPI_Aint get_type_extent(T const& type) const {
    MPI_Aint e = 0;
    MPI_CXX_CALL(MPI_File_get_type_extent, h(), detail::to_datatype(type), &e);
    return e;
  }

  // --- Size and consistency ---
  // In bytes.
  MPI_Offset get_size() const {
    MPI_Offset n = 0;
    MPI_CXX_CALL(MPI_File_get_size, h(), &n);
    return n;
  }
  // Collective: truncates or extends (the extension's contents are undefined).
  void set_size(MPI_Offset bytes) const { MPI_CXX_CALL(MPI_File_set_size, h(), bytes); }
  // Collective: reserves storage for the first `bytes` bytes; never shrinks the file.
  void preallocate(MPI_Offset bytes) const { MPI_CXX_CALL(MPI_File_preallocate, h(), bytes); }
  // Collective: this process's writes reach the storage device, and become visible to the
  // other processes' later reads (with a barrier between, in non-atomic mode).
  void sync() const { MPI_CXX_CALL(MPI_File_sync, h()); }
  // Collective.
  void set_atomicity(bool atomic) const { MPI_CXX_CALL(MPI_File_set_atomicity, h(), atomic ? 1 : 0); }
  bool get_atomicity() const {
    int flag = 0;
    MPI_CXX_CALL(MPI_File_get_atomicity, h(), &flag);
    return flag != 0;
  }

  // --- Attributes ---
  // The group of the communicator the file was opened on.
  mpi::group get_group() const {
    MPI_Group g;
    MPI_CXX_CALL(MPI_File_get_group, h(), &g);
    return mpi::group::from_native(g);
  }
  access_mode get_amode() const {
    int m = 0;
    MPI_CXX_CALL(MPI_File_get_amode, h(), &m);
    return access_mode(m);
  }
  template <info_handle I>
  void set_info(I const& i) const {
    MPI_CXX_CALL(MPI_File_set_info, h(), mpi::handle(i));
  }
  // The hints in use: what the MPI kept of those given, and its own.
  mpi::info get_info() const {
    MPI_Info i;
    MPI_CXX_CALL(MPI_File_get_info, h(), &i);
    return mpi::info::from_native(i);
  }
  // A file's handler is its own: at open, the default file handler (file::default_errhandler,
  // MPI_ERRORS_RETURN unless changed), whatever the communicator's. So a failed access is an
  // mpi_error by default, unlike a failed send.
  template <errhandler_handle E>
  void set_errhandler(E const& e) const {
    MPI_CXX_CALL(MPI_File_set_errhandler, h(), mpi::handle(e));
  }
  errhandler get_errhandler() const {
    MPI_Errhandler e;
    MPI_CXX_CALL(MPI_File_get_errhandler, h(), &e);
    return errhandler::from_native(e);
  }
};

class file_view : public detail::view_base<detail::file_kind>, public file_ops<file_view> {
public:
  using view_base::view_base;
};

// An open file. Closing it (destructor, close()) is collective over the communicator it was
// opened on, and must follow the completion of its nonblocking and split collective accesses,
// as MPI_File_close requires.
class file : public detail::owner_base<detail::file_kind, file, file_view>, public file_ops<file> {
public:
  file() noexcept = default;

  // Collective over `comm`; every process gives the same name and amode. Errors are reported
  // through the default file error handler (MPI_ERRORS_RETURN unless changed), so a file that
  // cannot be opened throws mpi_error (MPI_ERR_NO_SUCH_FILE, MPI_ERR_ACCESS, ... or
  // MPI_ERR_FILE, as the MPI sees fit).
  template <comm_handle C, info_handle I = info_null_t>
  static file open(C const& comm, std::string_view filename, access_mode amode, I const& info = I{}) {
    MPI_File f = MPI_FILE_NULL;
    MPI_CXX_CALL(MPI_File_open, mpi::handle(comm), detail::c_string(filename), amode.bits(), mpi::handle(info), &f);
    return from_native(f);
  }
  // MPI_File_close, reporting errors; leaves the owner empty.
  void close() { free(); }
  // Deletes a file that no process has open (`delete` is a keyword: the trailing underscore,
  // as datatype::struct_).
  template <info_handle I = info_null_t>
  static void delete_(std::string_view filename, I const& info = I{}) {
    MPI_CXX_CALL(MPI_File_delete, detail::c_string(filename), mpi::handle(info));
  }

  // The handler files get at open, and file::delete_ and a failed open report to (the
  // handler of MPI_FILE_NULL).
  template <errhandler_handle E>
  static void set_default_errhandler(E const& e) {
    MPI_CXX_CALL(MPI_File_set_errhandler, MPI_FILE_NULL, mpi::handle(e));
  }
  static errhandler default_errhandler() {
    MPI_Errhandler e;
    MPI_CXX_CALL(MPI_File_get_errhandler, MPI_FILE_NULL, &e);
    return errhandler::from_native(e);
  }
};

}  // namespace mpi
