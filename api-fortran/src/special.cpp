// Fortran entry points whose arguments do not map one to one onto the C
// call: no argc/argv, functions with results, attribute values handed out as
// values (a window's predefined ones too; setting them, and the keyvals, are
// in keyvals.cpp), the MPI-1 forms that take default integers for addresses,
// no ierror (MPI_PCONTROL), a buffer length that is the CHARACTER's own, a
// length asked for without C's terminating null.
#include <string>
#include <vector>

#include "fortran_support.hpp"

extern "C" {

void pmpi_init_(MPI_Fint* ierror) { tern::fortran::set_error(ierror, PMPI_Init(nullptr, nullptr)); }
TERN_FORTRAN_WEAK_ALIAS(init)

void pmpi_init_thread_(const MPI_Fint* required, MPI_Fint* provided, MPI_Fint* ierror) {
  tern::fortran::set_error(ierror, PMPI_Init_thread(nullptr, nullptr, *required, provided));
}
TERN_FORTRAN_WEAK_ALIAS(init_thread)

double pmpi_wtime_() { return PMPI_Wtime(); }
TERN_FORTRAN_WEAK_ALIAS(wtime)

double pmpi_wtick_() { return PMPI_Wtick(); }
TERN_FORTRAN_WEAK_ALIAS(wtick)

MPI_Aint pmpi_aint_add_(const MPI_Aint* base, const MPI_Aint* disp) { return PMPI_Aint_add(*base, *disp); }
TERN_FORTRAN_WEAK_ALIAS(aint_add)

MPI_Aint pmpi_aint_diff_(const MPI_Aint* addr1, const MPI_Aint* addr2) { return PMPI_Aint_diff(*addr1, *addr2); }
TERN_FORTRAN_WEAK_ALIAS(aint_diff)

// For the predefined keys C hands back a pointer to the value, and Fortran
// takes the value itself; a user keyval's value is the address-sized
// integer that was set (Fortran's MPI_COMM_SET_ATTR stores it as the pointer).
void pmpi_comm_get_attr_(const MPI_Fint* comm, const MPI_Fint* comm_keyval, MPI_Aint* attribute_val,
                         MPI_Fint* flag, MPI_Fint* ierror) {
  void* value = nullptr;
  int found = 0;
  const int rc = PMPI_Comm_get_attr(*comm, *comm_keyval, &value, &found);
  if (rc == MPI_SUCCESS && found) {
    *attribute_val = *comm_keyval >= MPI_TAG_UB && *comm_keyval <= MPI_LASTUSEDCODE
                         ? *static_cast<const int*>(value)
                         : reinterpret_cast<MPI_Aint>(value);
  }
  *flag = tern::fortran::to_logical(found);
  tern::fortran::set_error(ierror, rc);
}
TERN_FORTRAN_WEAK_ALIAS(comm_get_attr)

// A window's predefined keys: C hands back the base itself (MPI_WIN_BASE) or a
// pointer to the value (an MPI_Aint for MPI_WIN_SIZE, an int for the others);
// Fortran takes the value. A user keyval's value is the integer that was set.
void pmpi_win_get_attr_(const MPI_Fint* win, const MPI_Fint* win_keyval, MPI_Aint* attribute_val, MPI_Fint* flag,
                        MPI_Fint* ierror) {
  void* value = nullptr;
  int found = 0;
  const int rc = PMPI_Win_get_attr(*win, *win_keyval, &value, &found);
  if (rc == MPI_SUCCESS && found) {
    switch (*win_keyval) {
      case MPI_WIN_SIZE: *attribute_val = *static_cast<const MPI_Aint*>(value); break;
      case MPI_WIN_DISP_UNIT:
      case MPI_WIN_CREATE_FLAVOR:
      case MPI_WIN_MODEL: *attribute_val = *static_cast<const int*>(value); break;
      default: *attribute_val = reinterpret_cast<MPI_Aint>(value); break;
    }
  }
  *flag = tern::fortran::to_logical(found);
  tern::fortran::set_error(ierror, rc);
}
TERN_FORTRAN_WEAK_ALIAS(win_get_attr)

// The old form's buffer_addr is a choice buffer the program already knows;
// nothing is written into it. mpi_f08's is a type(c_ptr) that receives it.
void pmpi_buffer_detach_(void* buffer_addr, MPI_Fint* size, MPI_Fint* ierror) {
  (void)buffer_addr;
  void* detached = nullptr;
  tern::fortran::set_error(ierror, PMPI_Buffer_detach(&detached, size));
}
TERN_FORTRAN_WEAK_ALIAS(buffer_detach)

// mpi_f08's MPI_Buffer_detach_f08 gives the address, a TYPE(C_PTR).
void pmpi_buffer_detach_f08_(void** buffer_addr, MPI_Fint* size, MPI_Fint* ierror) {
  tern::fortran::set_error(ierror, PMPI_Buffer_detach(buffer_addr, size));
}
TERN_FORTRAN_WEAK_ALIAS(buffer_detach_f08)

// MPI-1's MPI_TYPE_HVECTOR and MPI_TYPE_HINDEXED take default integers for
// byte displacements.
void pmpi_type_hvector_(const MPI_Fint* count, const MPI_Fint* blocklength, const MPI_Fint* stride,
                        const MPI_Fint* oldtype, MPI_Fint* newtype, MPI_Fint* ierror) {
  tern::fortran::set_error(ierror, PMPI_Type_create_hvector(*count, *blocklength, *stride, *oldtype, newtype));
}
TERN_FORTRAN_WEAK_ALIAS(type_hvector)

void pmpi_type_hindexed_(const MPI_Fint* count, const MPI_Fint* array_of_blocklengths,
                         const MPI_Fint* array_of_displacements, const MPI_Fint* oldtype, MPI_Fint* newtype,
                         MPI_Fint* ierror) {
  std::vector<MPI_Aint> displacements(*count > 0 ? *count : 0);
  for (std::size_t i = 0; i < displacements.size(); ++i) displacements[i] = array_of_displacements[i];
  tern::fortran::set_error(ierror, PMPI_Type_create_hindexed(*count, array_of_blocklengths, displacements.data(),
                                                             *oldtype, newtype));
}
TERN_FORTRAN_WEAK_ALIAS(type_hindexed)

void pmpi_f_sync_reg_(void* buf) { (void)buf; }
TERN_FORTRAN_WEAK_ALIAS(f_sync_reg)

void pmpi_pcontrol_(const MPI_Fint* level) { PMPI_Pcontrol(*level); }
TERN_FORTRAN_WEAK_ALIAS(pcontrol)

// The value is cut to LEN(value); buflen returns the whole value's length
// (C's counts the terminating null too).
void pmpi_info_get_string_(const MPI_Fint* info, const char* key, MPI_Fint* buflen, char* value, MPI_Fint* flag,
                           MPI_Fint* ierror, std::size_t key_len, std::size_t value_len) {
  const std::string key_c = tern::fortran::trimmed(key, key_len);
  std::vector<char> value_c(value_len + 1);
  int buflen_c = static_cast<int>(value_c.size());
  int found = 0;
  const int rc = PMPI_Info_get_string(*info, key_c.c_str(), &buflen_c, value_c.data(), &found);
  if (rc == MPI_SUCCESS && found) {
    tern::fortran::store_string(value, value_len, value_c.data());
    *buflen = buflen_c - 1;
  }
  *flag = tern::fortran::to_logical(found);
  tern::fortran::set_error(ierror, rc);
}
TERN_FORTRAN_WEAK_ALIAS(info_get_string)

// pset_len 0 asks for the name's length, which in Fortran has no terminating
// null; otherwise the name, cut to pset_len and to LEN(pset_name), is
// blank-padded into pset_name. n counts from 0, as in C.
void pmpi_session_get_nth_pset_(const MPI_Fint* session, const MPI_Fint* info, const MPI_Fint* n,
                                MPI_Fint* pset_len, char* pset_name, MPI_Fint* ierror, std::size_t pset_name_len) {
  int length = *pset_len < 0 ? *pset_len : 0;  // negative: C's MPI_ERR_ARG
  int rc = PMPI_Session_get_nth_pset(*session, *info, *n, &length, nullptr);
  if (rc == MPI_SUCCESS && *pset_len == 0) {
    *pset_len = length - 1;
  } else if (rc == MPI_SUCCESS) {
    std::vector<char> name(static_cast<std::size_t>(length));
    rc = PMPI_Session_get_nth_pset(*session, *info, *n, &length, name.data());
    const std::size_t room = std::min(pset_name_len, static_cast<std::size_t>(*pset_len));
    if (rc == MPI_SUCCESS && room < name.size()) name[room] = '\0';
    if (rc == MPI_SUCCESS) tern::fortran::store_string(pset_name, pset_name_len, name.data());
  }
  tern::fortran::set_error(ierror, rc);
}
TERN_FORTRAN_WEAK_ALIAS(session_get_nth_pset)

}  // extern "C"
