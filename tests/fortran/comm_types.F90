! Communicators, groups and derived datatypes from Fortran: dup, split,
! compare, free, groups; contiguous, vector and struct types (a struct of
! absolute addresses sent from MPI_BOTTOM), extents, names, and the calls
! that hand back strings or attribute values.
#include "forms.h"
program fortran_comm_types
  USE_MPI
  use fortran_check
  implicit none
  INCLUDE_MPIF
  integer :: rank, ranks, right, left, ierror, result, i, length, sub_rank, sub_size, total
  integer :: ranks_in(1), ranks_out(1), blocklengths(2)
  integer :: ints_out(6), ints_in(6), struct_int_out, struct_int_in
  double precision :: matrix(3, 4), row(4), struct_real_out, struct_real_in
  integer(kind=MPI_ADDRESS_KIND) :: lb, extent, displacements(2), tag_ub
  character(len=MPI_MAX_PROCESSOR_NAME) :: host
  character(len=MPI_MAX_OBJECT_NAME) :: type_name
  character(len=MPI_MAX_ERROR_STRING) :: message
  logical :: flag
  COMM_T :: dup, split
  GROUP_T :: world_group, first_group
  DATATYPE_T :: triple, column_row, pair, types(2)

  call MPI_Init(ierror)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierror)
  call MPI_Comm_size(MPI_COMM_WORLD, ranks, ierror)
  right = mod(rank + 1, ranks)
  left = mod(rank + ranks - 1, ranks)

  ! --- Communicators
  call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierror)
  call MPI_Comm_compare(MPI_COMM_WORLD, dup, result, ierror)
  call check(result == MPI_CONGRUENT, 'MPI_Comm_dup is congruent')
  call MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_WORLD, result, ierror)
  call check(result == MPI_IDENT, 'MPI_Comm_compare ident')
  call MPI_Comm_free(dup, ierror)
  call check(dup == MPI_COMM_NULL, 'MPI_Comm_free')

  ! Even and odd ranks, each in reverse order of world rank.
  call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), -rank, split, ierror)
  call MPI_Comm_size(split, sub_size, ierror)
  call MPI_Comm_rank(split, sub_rank, ierror)
  call check(sub_size == (ranks + 1 - mod(rank, 2)) / 2, 'MPI_Comm_split size')
  call check(sub_rank == (ranks - 1 - rank) / 2, 'MPI_Comm_split rank')
  call MPI_Allreduce(rank, total, 1, MPI_INTEGER, MPI_SUM, split, ierror)
  call check(total == sum([(i, i = mod(rank, 2), ranks - 1, 2)]), 'MPI_Allreduce on a split communicator')
  call MPI_Comm_free(split, ierror)
  call MPI_Comm_split(MPI_COMM_WORLD, MPI_UNDEFINED, 0, split, ierror)
  call check(split == MPI_COMM_NULL, 'MPI_Comm_split with MPI_UNDEFINED')

  ! --- Groups
  call MPI_Comm_group(MPI_COMM_WORLD, world_group, ierror)
  ranks_in(1) = ranks - 1
  call MPI_Group_incl(world_group, 1, ranks_in, first_group, ierror)
  call MPI_Group_size(first_group, i, ierror)
  call check(i == 1, 'MPI_Group_incl size')
  call MPI_Group_rank(first_group, i, ierror)
  call check(i == merge(0, MPI_UNDEFINED, rank == ranks - 1), 'MPI_Group_rank')
  call MPI_Group_translate_ranks(first_group, 1, [0], world_group, ranks_out, ierror)
  call check(ranks_out(1) == ranks - 1, 'MPI_Group_translate_ranks')
  call MPI_Group_free(first_group, ierror)
  call MPI_Group_free(world_group, ierror)
  call check(world_group == MPI_GROUP_NULL, 'MPI_Group_free')

  ! --- Contiguous: two triples of integers around the ring.
  call MPI_Type_contiguous(3, MPI_INTEGER, triple, ierror)
  call MPI_Type_commit(triple, ierror)
  call MPI_Type_size(triple, i, ierror)
  call check(i == 12, 'MPI_Type_size of a contiguous type')
  ints_out = [(10 * rank + i, i = 1, 6)]
  ints_in = -1
  call MPI_Sendrecv(ints_out, 2, triple, right, 1, ints_in, 2, triple, left, 1, MPI_COMM_WORLD, &
                    MPI_STATUS_IGNORE, ierror)
  call check(all(ints_in == [(10 * left + i, i = 1, 6)]), 'contiguous type data')
  call MPI_Type_set_name(triple, 'integer triple  ', ierror)
  call MPI_Type_get_name(triple, type_name, length, ierror)
  call check(type_name == 'integer triple' .and. length == 14, 'MPI_Type_set_name and MPI_Type_get_name')
  call MPI_Type_free(triple, ierror)
  call check(triple == MPI_DATATYPE_NULL, 'MPI_Type_free')

  ! --- Vector: row 2 of a 3x4 column-major matrix is 4 values at stride 3.
  call MPI_Type_vector(4, 1, 3, MPI_DOUBLE_PRECISION, column_row, ierror)
  call MPI_Type_commit(column_row, ierror)
  call MPI_Type_get_extent(column_row, lb, extent, ierror)
  call check(lb == 0 .and. extent == 10 * 8, 'MPI_Type_get_extent of a vector')
  matrix = reshape([(rank * 100 + i, i = 1, 12)], [3, 4])
  row = -1
  call MPI_Sendrecv(matrix(2, 1), 1, column_row, right, 2, row, 4, MPI_DOUBLE_PRECISION, left, 2, &
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierror)
  call check(all(abs(row - [(left * 100 + 2 + 3 * i, i = 0, 3)]) < 1d-9), 'vector type data')
  call MPI_Type_free(column_row, ierror)

  ! --- Struct of absolute addresses, sent from and received at MPI_BOTTOM.
  struct_int_out = 1000 + rank
  struct_real_out = 0.25d0 * rank
  blocklengths = [1, 1]
  types = [MPI_INTEGER, MPI_DOUBLE_PRECISION]
  call MPI_Get_address(struct_int_out, displacements(1), ierror)
  call MPI_Get_address(struct_real_out, displacements(2), ierror)
  call MPI_Type_create_struct(2, blocklengths, displacements, types, pair, ierror)
  call MPI_Type_commit(pair, ierror)
  call MPI_Send(MPI_BOTTOM, 1, pair, right, 3, MPI_COMM_WORLD, ierror)
  call MPI_Type_free(pair, ierror)
  call MPI_Get_address(struct_int_in, displacements(1), ierror)
  call MPI_Get_address(struct_real_in, displacements(2), ierror)
  call MPI_Type_create_struct(2, blocklengths, displacements, types, pair, ierror)
  call MPI_Type_commit(pair, ierror)
  call MPI_Recv(MPI_BOTTOM, 1, pair, left, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierror)
  call check(ierror == MPI_SUCCESS, 'MPI_Recv at MPI_BOTTOM')
  call check(struct_int_in == 1000 + left .and. abs(struct_real_in - 0.25d0 * left) < 1d-12, &
             'struct type at MPI_BOTTOM')
  call MPI_Type_free(pair, ierror)

#if !defined(TERN_FORM_F08)
  ! --- MPI-1's hvector: a default-integer byte stride (no mpi_f08 form).
  call MPI_Type_hvector(4, 1, 24, MPI_DOUBLE_PRECISION, column_row, ierror)
  call MPI_Type_commit(column_row, ierror)
  call MPI_Type_get_extent(column_row, lb, extent, ierror)
  call check(ierror == MPI_SUCCESS .and. extent == 80, 'MPI_Type_hvector extent')
  call MPI_Type_free(column_row, ierror)
#endif

  ! --- Errors returned in ierror once the handler says so.
  call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierror)
  call MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN, ierror)
  call MPI_Send(ints_out, 1, MPI_INTEGER, ranks, 0, dup, ierror)
  call check(ierror /= MPI_SUCCESS, 'a send to a rank out of range fails')
  i = ierror
  call MPI_Error_class(i, result, ierror)
  call check(result == MPI_ERR_RANK, 'MPI_Error_class of a bad rank')
  call MPI_Comm_free(dup, ierror)

  ! --- Strings and attributes.
  call MPI_Get_processor_name(host, length, ierror)
  call check(length > 0 .and. len_trim(host) == length, 'MPI_Get_processor_name')
  call MPI_Error_string(MPI_ERR_COMM, message, length, ierror)
  call check(length > 0 .and. len_trim(message) == length, 'MPI_Error_string')
  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, tag_ub, flag, ierror)
  call check(flag .and. tag_ub >= 32767, 'MPI_Comm_get_attr MPI_TAG_UB')

  call report_pass('fortran_comm_types', FORM_NAME)
  call MPI_Finalize(ierror)
end program fortran_comm_types
