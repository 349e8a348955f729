"""The Fortran bindings, one entry per MPI function, grouped by family.

Each entry is (name, parameters[, options]). A parameter is "name:kind";
generate.py says what each kind becomes in the C wrapper, in the `mpi`
module's interfaces and in `mpi_f08`'s. Handle kinds carry the handle type
(Comm, Datatype, ...): "Comm" is an input, "Comm_out" an output, "Comm_inout"
both, "Comm_array" an input array, "Comm_array_inout" an array updated in
place. Options:
  handwritten  the C wrapper is in src/ (the interfaces are still generated)
  function=T   a Fortran function returning T (double, aint)
  no_ierror    a subroutine without ierror (MPI_PCONTROL)
  fortran_only no C function of that name (not in covered.txt)
  mpi_only     no mpi_f08 form (removed from the standard before Fortran 2008)
  f08_handwritten  mpi_f08's form calls its own C entry point, pmpi_<name>_f08_
               in src/ (for arguments whose Fortran 2008 type means something
               else than the old form's)
  f08_kinds    {parameter: kind} where mpi_f08's form differs
  c_ptr_overload  `use mpi` also takes a TYPE(C_PTR) for the address_out
               argument (MPI_<name>_cptr, the same entry point)

The MPI 4.0 large-count forms come from the C prototypes of
api-mpi/include/mpi_large_count.h (generate.py reads them): each MPI_<name>_c
there gives mpi_f08's generic MPI_<name> a second specific procedure,
MPI_<name>_c_f08, beside MPI_<name>_f08, whose parameters are the entry's
with every one that C widens to MPI_Count or MPI_Aint widened in Fortran to
INTEGER(KIND=MPI_COUNT_KIND) or INTEGER(KIND=MPI_ADDRESS_KIND) (arrays
included). mpif.h and `use mpi` have no large-count forms.
"""

BUFFER_SEND = "buf:choice, count:int, datatype:Datatype, dest:int, tag:int, comm:Comm"
NONBLOCKING_SEND = BUFFER_SEND + ", request:Request_out"
RECEIVE = "buf:choice, count:int, datatype:Datatype, source:int, tag:int, comm:Comm"
ORIGIN = "origin_addr:choice, origin_count:int, origin_datatype:Datatype"
TARGET = "target_rank:int, target_disp:aint, target_count:int, target_datatype:Datatype"
RESULT = "result_addr:choice, result_count:int, result_datatype:Datatype"
FILE_ACCESS = "fh:File, buf:choice, count:int, datatype:Datatype"
GATHER_LIKE = ("sendbuf:choice, sendcount:int, sendtype:Datatype, recvbuf:choice, recvcount:int, "
               "recvtype:Datatype")

COLLECTIVES = [
    ("Barrier", "comm:Comm"),
    ("Bcast", "buffer:choice, count:int, datatype:Datatype, root:int, comm:Comm"),
    ("Reduce", "sendbuf:choice, recvbuf:choice, count:int, datatype:Datatype, op:Op, root:int, comm:Comm"),
    ("Allreduce", "sendbuf:choice, recvbuf:choice, count:int, datatype:Datatype, op:Op, comm:Comm"),
    ("Reduce_scatter_block", "sendbuf:choice, recvbuf:choice, recvcount:int, datatype:Datatype, op:Op, "
                             "comm:Comm"),
    ("Gather", GATHER_LIKE + ", root:int, comm:Comm"),
    ("Scatter", GATHER_LIKE + ", root:int, comm:Comm"),
    ("Allgather", GATHER_LIKE + ", comm:Comm"),
    ("Alltoall", GATHER_LIKE + ", comm:Comm"),
    ("Gatherv", "sendbuf:choice, sendcount:int, sendtype:Datatype, recvbuf:choice, recvcounts:int_array, "
                "displs:int_array, recvtype:Datatype, root:int, comm:Comm"),
    ("Scatterv", "sendbuf:choice, sendcounts:int_array, displs:int_array, sendtype:Datatype, "
                 "recvbuf:choice, recvcount:int, recvtype:Datatype, root:int, comm:Comm"),
    ("Allgatherv", "sendbuf:choice, sendcount:int, sendtype:Datatype, recvbuf:choice, "
                   "recvcounts:int_array, displs:int_array, recvtype:Datatype, comm:Comm"),
    ("Alltoallv", "sendbuf:choice, sendcounts:int_array, sdispls:int_array, sendtype:Datatype, "
                  "recvbuf:choice, recvcounts:int_array, rdispls:int_array, recvtype:Datatype, comm:Comm"),
    ("Alltoallw", "sendbuf:choice, sendcounts:int_array, sdispls:int_array, sendtypes:Datatype_array, "
                  "recvbuf:choice, recvcounts:int_array, rdispls:int_array, recvtypes:Datatype_array, "
                  "comm:Comm"),
    ("Reduce_scatter", "sendbuf:choice, recvbuf:choice, recvcounts:int_array, datatype:Datatype, op:Op, "
                       "comm:Comm"),
    ("Scan", "sendbuf:choice, recvbuf:choice, count:int, datatype:Datatype, op:Op, comm:Comm"),
    ("Exscan", "sendbuf:choice, recvbuf:choice, count:int, datatype:Datatype, op:Op, comm:Comm"),
]

# The neighbourhood collectives take the same arguments as the collectives of
# their names, except that MPI_Neighbor_alltoallw's displacements are MPI_Aint.
NEIGHBOR_COLLECTIVES = [("Neighbor_" + name.lower(), params) for name, params in COLLECTIVES
                        if name in ("Allgather", "Allgatherv", "Alltoall", "Alltoallv")] + [
    ("Neighbor_alltoallw", "sendbuf:choice, sendcounts:int_array, sdispls:aint_array, sendtypes:Datatype_array, "
                           "recvbuf:choice, recvcounts:int_array, rdispls:aint_array, recvtypes:Datatype_array, "
                           "comm:Comm"),
]


def request_forms(collectives):
    """Each collective's non-blocking (MPI_Ibcast) and persistent (MPI_Bcast_init) form."""
    return ([("I" + name[0].lower() + name[1:], params + ", request:Request_out") for name, params in collectives] +
            [(name + "_init", params + ", info:Info, request:Request_out") for name, params in collectives])


FAMILIES = {
    "env": [
        ("Init", "", {"handwritten": True}),
        ("Init_thread", "required:int, provided:int_out", {"handwritten": True}),
        ("Query_thread", "provided:int_out"),
        ("Is_thread_main", "flag:logical_out"),
        ("Finalize", ""),
        ("Initialized", "flag:logical_out"),
        ("Finalized", "flag:logical_out"),
        ("Abort", "comm:Comm, errorcode:int"),
        ("Wtime", "", {"handwritten": True, "function": "double"}),
        ("Wtick", "", {"handwritten": True, "function": "double"}),
        ("Get_processor_name", "name:string_out(MPI_MAX_PROCESSOR_NAME), resultlen:int_out"),
        ("Get_version", "version:int_out, subversion:int_out"),
        ("Get_library_version", "version:string_out(MPI_MAX_LIBRARY_VERSION_STRING), resultlen:int_out"),
        ("Alloc_mem", "size:aint, info:Info, baseptr:address_out", {"c_ptr_overload": True}),
        ("Free_mem", "base:choice"),
        ("Comm_set_errhandler", "comm:Comm, errhandler:Errhandler"),
        ("Comm_get_errhandler", "comm:Comm, errhandler:Errhandler_out"),
        ("Errhandler_free", "errhandler:Errhandler_inout"),
        ("Error_string", "errorcode:int, string:string_out(MPI_MAX_ERROR_STRING), resultlen:int_out"),
        ("Error_class", "errorcode:int, errorclass:int_out"),
        # A Fortran handler takes the handle and the code by reference, as C's does.
        ("Comm_create_errhandler", "comm_errhandler_fn:errhandler_fn(Comm), errhandler:Errhandler_out"),
        ("Comm_call_errhandler", "comm:Comm, errorcode:int"),
        ("Add_error_class", "errorclass:int_out"),
        ("Add_error_code", "errorclass:int, errorcode:int_out"),
        ("Add_error_string", "errorcode:int, string:string_in"),
        ("Pcontrol", "level:int", {"handwritten": True, "no_ierror": True}),
        # Fortran's own: a call the compiler cannot see through, so a buffer
        # in flight is neither cached nor moved across it.
        ("F_sync_reg", "buf:choice", {"handwritten": True, "no_ierror": True, "fortran_only": True}),
    ],
    "comm": [
        ("Comm_rank", "comm:Comm, rank:int_out"),
        ("Comm_size", "comm:Comm, size:int_out"),
        ("Comm_dup", "comm:Comm, newcomm:Comm_out"),
        ("Comm_free", "comm:Comm_inout"),
        ("Comm_compare", "comm1:Comm, comm2:Comm, result:int_out"),
        ("Comm_get_attr", "comm:Comm, comm_keyval:int, attribute_val:aint_out, flag:logical_out",
         {"handwritten": True}),
        ("Comm_split", "comm:Comm, color:int, key:int, newcomm:Comm_out"),
        ("Comm_create", "comm:Comm, group:Group, newcomm:Comm_out"),
        ("Comm_group", "comm:Comm, group:Group_out"),
        ("Group_size", "group:Group, size:int_out"),
        ("Group_rank", "group:Group, rank:int_out"),
        ("Group_incl", "group:Group, n:int, ranks:int_array, newgroup:Group_out"),
        ("Group_excl", "group:Group, n:int, ranks:int_array, newgroup:Group_out"),
        ("Group_free", "group:Group_inout"),
        ("Group_translate_ranks", "group1:Group, n:int, ranks1:int_array, group2:Group, ranks2:int_array_out"),
        ("Group_compare", "group1:Group, group2:Group, result:int_out"),
        ("Group_union", "group1:Group, group2:Group, newgroup:Group_out"),
        ("Group_intersection", "group1:Group, group2:Group, newgroup:Group_out"),
        ("Group_difference", "group1:Group, group2:Group, newgroup:Group_out"),
        # RANGES(3, n): C's int[n][3] (groups.cpp).
        ("Group_range_incl", "group:Group, n:int, ranges:int_array, newgroup:Group_out", {"handwritten": True}),
        ("Group_range_excl", "group:Group, n:int, ranges:int_array, newgroup:Group_out", {"handwritten": True}),
        ("Op_create", "user_fn:user_function, commute:logical, op:Op_out"),
        ("Op_free", "op:Op_inout"),
        ("Op_commutative", "op:Op, commute:logical_out"),
        ("Comm_test_inter", "comm:Comm, flag:logical_out"),
        ("Comm_set_name", "comm:Comm, comm_name:string_in"),
        ("Comm_get_name", "comm:Comm, comm_name:string_out(MPI_MAX_OBJECT_NAME), resultlen:int_out"),
        ("Comm_set_info", "comm:Comm, info:Info"),
        ("Comm_get_info", "comm:Comm, info_used:Info_out"),
        ("Comm_dup_with_info", "comm:Comm, info:Info, newcomm:Comm_out"),
        ("Comm_split_type", "comm:Comm, split_type:int, key:int, info:Info, newcomm:Comm_out"),
        # Intercommunicators.
        ("Intercomm_create", "local_comm:Comm, local_leader:int, peer_comm:Comm, remote_leader:int, tag:int, "
                             "newintercomm:Comm_out"),
        ("Intercomm_merge", "intercomm:Comm, high:logical, newintracomm:Comm_out"),
        ("Comm_remote_size", "comm:Comm, size:int_out"),
        ("Comm_remote_group", "comm:Comm, group:Group_out"),
        ("Intercomm_create_from_groups", "local_group:Group, local_leader:int, remote_group:Group, "
                                         "remote_leader:int, stringtag:string_in, info:Info, errhandler:Errhandler, "
                                         "newintercomm:Comm_out"),
        # newcomm is set at the call, usable once the request completes.
        ("Comm_idup", "comm:Comm, newcomm:Comm_out, request:Request_out"),
        ("Comm_idup_with_info", "comm:Comm, info:Info, newcomm:Comm_out, request:Request_out"),
        ("Comm_create_group", "comm:Comm, group:Group, tag:int, newcomm:Comm_out"),
        # Keyvals are made in C (their callbacks take handles by value); the
        # values are address-sized integers.
        ("Comm_set_attr", "comm:Comm, comm_keyval:int, attribute_val:aint", {"handwritten": True}),
        ("Comm_delete_attr", "comm:Comm, comm_keyval:int"),
        # Fortran callbacks run through C ones that remember them (keyvals.cpp).
        ("Comm_create_keyval", "comm_copy_attr_fn:copy_attr_fn(Comm), comm_delete_attr_fn:delete_attr_fn(Comm), "
                               "comm_keyval:int_out, extra_state:aint", {"handwritten": True}),
        ("Comm_free_keyval", "comm_keyval:int_inout", {"handwritten": True}),
        # MPI-1's forms: default INTEGER values and extra_state (keyvals.cpp).
        ("Keyval_create", "copy_fn:copy_attr_fn(Comm), delete_fn:delete_attr_fn(Comm), keyval:int_out, "
                          "extra_state:int", {"handwritten": True, "mpi_only": True}),
        ("Keyval_free", "keyval:int_inout", {"handwritten": True, "mpi_only": True}),
        ("Attr_put", "comm:Comm, keyval:int, attribute_val:int", {"handwritten": True, "mpi_only": True}),
        ("Attr_get", "comm:Comm, keyval:int, attribute_val:int_out, flag:logical_out",
         {"handwritten": True, "mpi_only": True}),
        ("Attr_delete", "comm:Comm, keyval:int", {"mpi_only": True}),
    ],
    "p2p": [
        ("Send", BUFFER_SEND),
        ("Ssend", BUFFER_SEND),
        ("Rsend", BUFFER_SEND),
        ("Bsend", BUFFER_SEND),
        ("Recv", RECEIVE + ", status:status_out"),
        ("Isend", NONBLOCKING_SEND),
        ("Issend", NONBLOCKING_SEND),
        ("Irsend", NONBLOCKING_SEND),
        ("Ibsend", NONBLOCKING_SEND),
        ("Irecv", RECEIVE + ", request:Request_out"),
        ("Send_init", NONBLOCKING_SEND),
        ("Ssend_init", NONBLOCKING_SEND),
        ("Rsend_init", NONBLOCKING_SEND),
        ("Bsend_init", NONBLOCKING_SEND),
        ("Recv_init", RECEIVE + ", request:Request_out"),
        ("Sendrecv", "sendbuf:choice, sendcount:int, sendtype:Datatype, dest:int, sendtag:int, "
                     "recvbuf:choice, recvcount:int, recvtype:Datatype, source:int, recvtag:int, "
                     "comm:Comm, status:status_out"),
        ("Sendrecv_replace", "buf:choice, count:int, datatype:Datatype, dest:int, sendtag:int, source:int, "
                             "recvtag:int, comm:Comm, status:status_out"),
        ("Probe", "source:int, tag:int, comm:Comm, status:status_out"),
        ("Iprobe", "source:int, tag:int, comm:Comm, flag:logical_out, status:status_out"),
        ("Mprobe", "source:int, tag:int, comm:Comm, message:Message_out, status:status_out"),
        ("Improbe", "source:int, tag:int, comm:Comm, flag:logical_out, message:Message_out, status:status_out"),
        ("Mrecv", "buf:choice, count:int, datatype:Datatype, message:Message_inout, status:status_out"),
        ("Imrecv", "buf:choice, count:int, datatype:Datatype, message:Message_inout, request:Request_out"),
        ("Get_count", "status:status_in, datatype:Datatype, count:int_out"),
        ("Get_elements", "status:status_in, datatype:Datatype, count:int_out"),
        ("Test_cancelled", "status:status_in, flag:logical_out"),
        ("Isendrecv", "sendbuf:choice, sendcount:int, sendtype:Datatype, dest:int, sendtag:int, "
                      "recvbuf:choice, recvcount:int, recvtype:Datatype, source:int, recvtag:int, "
                      "comm:Comm, request:Request_out"),
        ("Isendrecv_replace", "buf:choice, count:int, datatype:Datatype, dest:int, sendtag:int, source:int, "
                              "recvtag:int, comm:Comm, request:Request_out"),
        ("Buffer_attach", "buffer:choice, size:int"),
        ("Buffer_detach", "buffer_addr:choice, size:int_out",
         {"handwritten": True, "f08_handwritten": True, "f08_kinds": {"buffer_addr": "address_out"}}),
    ],
    "request": [
        ("Wait", "request:Request_inout, status:status_out"),
        ("Test", "request:Request_inout, flag:logical_out, status:status_out"),
        ("Waitall", "count:int, array_of_requests:Request_array_inout, array_of_statuses:status_array_out(count)"),
        ("Testall", "count:int, array_of_requests:Request_array_inout, flag:logical_out, "
                    "array_of_statuses:status_array_out(count)"),
        ("Waitany", "count:int, array_of_requests:Request_array_inout, index:index_out, status:status_out"),
        ("Testany", "count:int, array_of_requests:Request_array_inout, index:index_out, flag:logical_out, "
                    "status:status_out"),
        ("Waitsome", "incount:int, array_of_requests:Request_array_inout, outcount:int_out, "
                     "array_of_indices:index_array_out(outcount), array_of_statuses:status_array_out(incount)"),
        ("Testsome", "incount:int, array_of_requests:Request_array_inout, outcount:int_out, "
                     "array_of_indices:index_array_out(outcount), array_of_statuses:status_array_out(incount)"),
        ("Request_get_status", "request:Request, flag:logical_out, status:status_out"),
        ("Request_free", "request:Request_inout"),
        ("Cancel", "request:Request_inout"),
        ("Start", "request:Request_inout"),
        ("Startall", "count:int, array_of_requests:Request_array_inout"),
        # Fortran callbacks run through C ones that remember them (grequest.cpp).
        ("Grequest_start", "query_fn:grequest_fn(Query), free_fn:grequest_fn(Free), cancel_fn:grequest_fn(Cancel), "
                           "extra_state:aint, request:Request_out", {"handwritten": True}),
        ("Grequest_complete", "request:Request"),
    ],
    "coll": COLLECTIVES + [
        ("Reduce_local", "inbuf:choice, inoutbuf:choice, count:int, datatype:Datatype, op:Op"),
    ],
    # Every collective's non-blocking (MPI_Ibcast) and persistent (MPI_Bcast_init) form.
    "coll_requests": request_forms(COLLECTIVES),
    "info": [
        ("Info_create", "info:Info_out"),
        ("Info_set", "info:Info, key:string_in, value:string_in"),
        ("Info_get", "info:Info, key:string_in, valuelen:int, value:string_out_sized(valuelen), flag:logical_out"),
        ("Info_get_string", "info:Info, key:string_in, buflen:int_inout, value:string_out, flag:logical_out",
         {"handwritten": True}),
        ("Info_get_valuelen", "info:Info, key:string_in, valuelen:int_out, flag:logical_out"),
        ("Info_delete", "info:Info, key:string_in"),
        ("Info_dup", "info:Info, newinfo:Info_out"),
        ("Info_free", "info:Info_inout"),
        # Fortran's has no argc/argv (groups.cpp passes none).
        ("Info_create_env", "info:Info_out", {"handwritten": True}),
        ("Info_get_nkeys", "info:Info, nkeys:int_out"),
        ("Info_get_nthkey", "info:Info, n:int, key:string_out(MPI_MAX_INFO_KEY)"),
    ],
    "io": [
        ("File_open", "comm:Comm, filename:string_in, amode:int, info:Info, fh:File_out"),
        ("File_close", "fh:File_inout"),
        ("File_delete", "filename:string_in, info:Info"),
        ("File_set_size", "fh:File, size:offset"),
        ("File_preallocate", "fh:File, size:offset"),
        ("File_get_size", "fh:File, size:offset_out"),
        ("File_get_group", "fh:File, group:Group_out"),
        ("File_get_amode", "fh:File, amode:int_out"),
        ("File_set_info", "fh:File, info:Info"),
        ("File_get_info", "fh:File, info_used:Info_out"),
        ("File_set_view", "fh:File, disp:offset, etype:Datatype, filetype:Datatype, datarep:string_in, info:Info"),
        ("File_get_view", "fh:File, disp:offset_out, etype:Datatype_out, filetype:Datatype_out, "
                          "datarep:string_out(MPI_MAX_DATAREP_STRING)"),
        ("File_read_at", "fh:File, offset:offset, buf:choice, count:int, datatype:Datatype, status:status_out"),
        ("File_write_at", "fh:File, offset:offset, buf:choice, count:int, datatype:Datatype, status:status_out"),
        ("File_read", FILE_ACCESS + ", status:status_out"),
        ("File_write", FILE_ACCESS + ", status:status_out"),
        ("File_read_at_all", "fh:File, offset:offset, buf:choice, count:int, datatype:Datatype, "
                             "status:status_out"),
        ("File_write_at_all", "fh:File, offset:offset, buf:choice, count:int, datatype:Datatype, "
                              "status:status_out"),
        ("File_read_all", FILE_ACCESS + ", status:status_out"),
        ("File_write_all", FILE_ACCESS + ", status:status_out"),
        ("File_iread_at", "fh:File, offset:offset, buf:choice, count:int, datatype:Datatype, "
                          "request:Request_out"),
        ("File_iwrite_at", "fh:File, offset:offset, buf:choice, count:int, datatype:Datatype, "
                           "request:Request_out"),
        ("File_iread", FILE_ACCESS + ", request:Request_out"),
        ("File_iwrite", FILE_ACCESS + ", request:Request_out"),
        ("File_iread_all", FILE_ACCESS + ", request:Request_out"),
        ("File_iwrite_all", FILE_ACCESS + ", request:Request_out"),
        ("File_iread_at_all", "fh:File, offset:offset, buf:choice, count:int, datatype:Datatype, "
                              "request:Request_out"),
        ("File_iwrite_at_all", "fh:File, offset:offset, buf:choice, count:int, datatype:Datatype, "
                               "request:Request_out"),
        ("File_read_all_begin", FILE_ACCESS),
        ("File_read_all_end", "fh:File, buf:choice, status:status_out"),
        ("File_write_all_begin", FILE_ACCESS),
        ("File_write_all_end", "fh:File, buf:choice, status:status_out"),
        ("File_read_at_all_begin", "fh:File, offset:offset, buf:choice, count:int, datatype:Datatype"),
        ("File_read_at_all_end", "fh:File, buf:choice, status:status_out"),
        ("File_write_at_all_begin", "fh:File, offset:offset, buf:choice, count:int, datatype:Datatype"),
        ("File_write_at_all_end", "fh:File, buf:choice, status:status_out"),
        ("File_seek", "fh:File, offset:offset, whence:int"),
        ("File_get_position", "fh:File, offset:offset_out"),
        ("File_get_byte_offset", "fh:File, offset:offset, disp:offset_out"),
        ("File_get_type_extent", "fh:File, datatype:Datatype, extent:aint_out"),
        ("File_sync", "fh:File"),
        ("File_set_atomicity", "fh:File, flag:logical"),
        ("File_get_atomicity", "fh:File, flag:logical_out"),
        ("File_read_shared", FILE_ACCESS + ", status:status_out"),
        ("File_write_shared", FILE_ACCESS + ", status:status_out"),
        ("File_iread_shared", FILE_ACCESS + ", request:Request_out"),
        ("File_iwrite_shared", FILE_ACCESS + ", request:Request_out"),
        ("File_read_ordered", FILE_ACCESS + ", status:status_out"),
        ("File_write_ordered", FILE_ACCESS + ", status:status_out"),
        ("File_read_ordered_begin", FILE_ACCESS),
        ("File_read_ordered_end", "fh:File, buf:choice, status:status_out"),
        ("File_write_ordered_begin", FILE_ACCESS),
        ("File_write_ordered_end", "fh:File, buf:choice, status:status_out"),
        ("File_seek_shared", "fh:File, offset:offset, whence:int"),
        ("File_get_position_shared", "fh:File, offset:offset_out"),
        ("File_create_errhandler", "file_errhandler_fn:errhandler_fn(File), errhandler:Errhandler_out"),
        ("File_set_errhandler", "file:File, errhandler:Errhandler"),
        ("File_get_errhandler", "file:File, errhandler:Errhandler_out"),
        ("File_call_errhandler", "fh:File, errorcode:int"),
        # Fortran conversion callbacks run through C ones (datarep.cpp);
        # MPI_CONVERSION_FN_NULL is a procedure there.
        ("Register_datarep", "datarep:string_in, read_conversion_fn:datarep_fn(Conversion), "
                             "write_conversion_fn:datarep_fn(Conversion), dtype_file_extent_fn:datarep_fn(Extent), "
                             "extra_state:aint", {"handwritten": True}),
    ],
    # One-sided communication: windows, their properties and synchronisation.
    "win": [
        ("Win_create", "base:choice, size:aint, disp_unit:int, info:Info, comm:Comm, win:Win_out"),
        ("Win_allocate", "size:aint, disp_unit:int, info:Info, comm:Comm, baseptr:address_out, win:Win_out",
         {"c_ptr_overload": True}),
        ("Win_allocate_shared", "size:aint, disp_unit:int, info:Info, comm:Comm, baseptr:address_out, "
                                "win:Win_out", {"c_ptr_overload": True}),
        ("Win_shared_query", "win:Win, rank:int, size:aint_out, disp_unit:int_out, baseptr:address_out",
         {"c_ptr_overload": True}),
        ("Win_create_dynamic", "info:Info, comm:Comm, win:Win_out"),
        ("Win_attach", "win:Win, base:choice, size:aint"),
        ("Win_detach", "win:Win, base:choice"),
        ("Win_free", "win:Win_inout"),
        ("Win_get_group", "win:Win, group:Group_out"),
        # The predefined keys' values are handed out as values, not pointers.
        ("Win_get_attr", "win:Win, win_keyval:int, attribute_val:aint_out, flag:logical_out", {"handwritten": True}),
        ("Win_set_attr", "win:Win, win_keyval:int, attribute_val:aint", {"handwritten": True}),
        ("Win_delete_attr", "win:Win, win_keyval:int"),
        ("Win_create_keyval", "win_copy_attr_fn:copy_attr_fn(Win), win_delete_attr_fn:delete_attr_fn(Win), "
                              "win_keyval:int_out, extra_state:aint", {"handwritten": True}),
        ("Win_free_keyval", "win_keyval:int_inout", {"handwritten": True}),
        ("Win_set_name", "win:Win, win_name:string_in"),
        ("Win_get_name", "win:Win, win_name:string_out(MPI_MAX_OBJECT_NAME), resultlen:int_out"),
        ("Win_set_info", "win:Win, info:Info"),
        ("Win_get_info", "win:Win, info_used:Info_out"),
        ("Win_create_errhandler", "win_errhandler_fn:errhandler_fn(Win), errhandler:Errhandler_out"),
        ("Win_set_errhandler", "win:Win, errhandler:Errhandler"),
        ("Win_get_errhandler", "win:Win, errhandler:Errhandler_out"),
        ("Win_call_errhandler", "win:Win, errorcode:int"),
        ("Put", ORIGIN + ", " + TARGET + ", win:Win"),
        ("Get", ORIGIN + ", " + TARGET + ", win:Win"),
        ("Accumulate", ORIGIN + ", " + TARGET + ", op:Op, win:Win"),
        ("Get_accumulate", ORIGIN + ", " + RESULT + ", " + TARGET + ", op:Op, win:Win"),
        ("Fetch_and_op", "origin_addr:choice, result_addr:choice, datatype:Datatype, target_rank:int, "
                         "target_disp:aint, op:Op, win:Win"),
        ("Compare_and_swap", "origin_addr:choice, compare_addr:choice, result_addr:choice, datatype:Datatype, "
                             "target_rank:int, target_disp:aint, win:Win"),
        ("Rput", ORIGIN + ", " + TARGET + ", win:Win, request:Request_out"),
        ("Rget", ORIGIN + ", " + TARGET + ", win:Win, request:Request_out"),
        ("Raccumulate", ORIGIN + ", " + TARGET + ", op:Op, win:Win, request:Request_out"),
        ("Rget_accumulate", ORIGIN + ", " + RESULT + ", " + TARGET + ", op:Op, win:Win, request:Request_out"),
        ("Win_fence", "assert:int, win:Win"),
        ("Win_post", "group:Group, assert:int, win:Win"),
        ("Win_start", "group:Group, assert:int, win:Win"),
        ("Win_complete", "win:Win"),
        ("Win_wait", "win:Win"),
        ("Win_test", "win:Win, flag:logical_out"),
        ("Win_lock", "lock_type:int, rank:int, assert:int, win:Win"),
        ("Win_unlock", "rank:int, win:Win"),
        ("Win_lock_all", "assert:int, win:Win"),
        ("Win_unlock_all", "win:Win"),
        ("Win_flush", "rank:int, win:Win"),
        ("Win_flush_all", "win:Win"),
        ("Win_flush_local", "rank:int, win:Win"),
        ("Win_flush_local_all", "win:Win"),
        ("Win_sync", "win:Win"),
    ],
    "topology": [
        ("Dims_create", "nnodes:int, ndims:int, dims:int_array_inout"),
        ("Cart_create", "comm_old:Comm, ndims:int, dims:int_array, periods:logical_array, reorder:logical, "
                        "comm_cart:Comm_out"),
        ("Cartdim_get", "comm:Comm, ndims:int_out"),
        ("Cart_get", "comm:Comm, maxdims:int, dims:int_array_out, periods:logical_array_out, coords:int_array_out"),
        ("Cart_rank", "comm:Comm, coords:int_array, rank:int_out"),
        ("Cart_coords", "comm:Comm, rank:int, maxdims:int, coords:int_array_out"),
        ("Cart_shift", "comm:Comm, direction:int, disp:int, rank_source:int_out, rank_dest:int_out"),
        ("Cart_sub", "comm:Comm, remain_dims:logical_array, newcomm:Comm_out"),
        ("Cart_map", "comm:Comm, ndims:int, dims:int_array, periods:logical_array, newrank:int_out"),
        ("Topo_test", "comm:Comm, status:int_out"),
        ("Graph_create", "comm_old:Comm, nnodes:int, index:int_array, edges:int_array, reorder:logical, "
                         "comm_graph:Comm_out"),
        ("Graphdims_get", "comm:Comm, nnodes:int_out, nedges:int_out"),
        ("Graph_get", "comm:Comm, maxindex:int, maxedges:int, index:int_array_out, edges:int_array_out"),
        ("Graph_neighbors_count", "comm:Comm, rank:int, nneighbors:int_out"),
        ("Graph_neighbors", "comm:Comm, rank:int, maxneighbors:int, neighbors:int_array_out"),
        ("Graph_map", "comm:Comm, nnodes:int, index:int_array, edges:int_array, newrank:int_out"),
        # Weights may be the sentinels MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY.
        ("Dist_graph_create_adjacent", "comm_old:Comm, indegree:int, sources:int_array, sourceweights:weights, "
                                       "outdegree:int, destinations:int_array, destweights:weights, info:Info, "
                                       "reorder:logical, comm_dist_graph:Comm_out"),
        ("Dist_graph_create", "comm_old:Comm, n:int, sources:int_array, degrees:int_array, "
                              "destinations:int_array, weights:weights, info:Info, reorder:logical, "
                              "comm_dist_graph:Comm_out"),
        ("Dist_graph_neighbors_count", "comm:Comm, indegree:int_out, outdegree:int_out, weighted:logical_out"),
        ("Dist_graph_neighbors", "comm:Comm, maxindegree:int, sources:int_array_out, sourceweights:weights_out, "
                                 "maxoutdegree:int, destinations:int_array_out, destweights:weights_out"),
    ],
    # The neighbourhood collectives, blocking, non-blocking (MPI_Ineighbor_allgather)
    # and persistent (MPI_Neighbor_allgather_init).
    "neighbor": NEIGHBOR_COLLECTIVES + request_forms(NEIGHBOR_COLLECTIVES),
    # MPI 4 sessions: process sets, groups of them, communicators from groups.
    "session": [
        ("Session_init", "info:Info, errhandler:Errhandler, session:Session_out"),
        ("Session_finalize", "session:Session_inout"),
        ("Session_get_info", "session:Session, info_used:Info_out"),
        ("Session_get_num_psets", "session:Session, info:Info, npset_names:int_out"),
        # pset_len 0 asks for the name's length (no terminating null in Fortran).
        ("Session_get_nth_pset", "session:Session, info:Info, n:int, pset_len:int_inout, "
                                 "pset_name:string_out(MPI_MAX_PSET_NAME_LEN)", {"handwritten": True}),
        ("Session_get_pset_info", "session:Session, pset_name:string_in, info:Info_out"),
        ("Group_from_session_pset", "session:Session, pset_name:string_in, newgroup:Group_out"),
        ("Comm_create_from_group", "group:Group, stringtag:string_in, info:Info, errhandler:Errhandler, "
                                   "newcomm:Comm_out"),
        ("Session_create_errhandler", "session_errhandler_fn:errhandler_fn(Session), errhandler:Errhandler_out"),
        ("Session_set_errhandler", "session:Session, errhandler:Errhandler"),
        ("Session_get_errhandler", "session:Session, errhandler:Errhandler_out"),
        ("Session_call_errhandler", "session:Session, errorcode:int"),
    ],
    # Dynamic processes: Tern refuses spawning, ports and names (mpi_dynamic.h).
    "dynamic": [
        # argv lists end with a blank string; MPI_ARGV(S)_NULL and
        # MPI_ERRCODES_IGNORE are Fortran sentinels (dynamic.cpp).
        ("Comm_spawn", "command:string_in, argv:string_array, maxprocs:int, info:Info, root:int, comm:Comm, "
                       "intercomm:Comm_out, array_of_errcodes:int_array_out", {"handwritten": True}),
        ("Comm_spawn_multiple", "count:int, array_of_commands:string_array, array_of_argv:string_array, "
                                "array_of_maxprocs:int_array, array_of_info:Info_array, root:int, comm:Comm, "
                                "intercomm:Comm_out, array_of_errcodes:int_array_out", {"handwritten": True}),
        ("Comm_get_parent", "parent:Comm_out"),
        ("Comm_disconnect", "comm:Comm_inout"),
        ("Open_port", "info:Info, port_name:string_out(MPI_MAX_PORT_NAME)"),
        ("Close_port", "port_name:string_in"),
        ("Comm_accept", "port_name:string_in, info:Info, root:int, comm:Comm, newcomm:Comm_out"),
        ("Comm_connect", "port_name:string_in, info:Info, root:int, comm:Comm, newcomm:Comm_out"),
        ("Comm_join", "fd:int, intercomm:Comm_out"),
        ("Publish_name", "service_name:string_in, info:Info, port_name:string_in"),
        ("Lookup_name", "service_name:string_in, info:Info, port_name:string_out(MPI_MAX_PORT_NAME)"),
        ("Unpublish_name", "service_name:string_in, info:Info, port_name:string_in"),
    ],
    "datatype": [
        ("Type_size", "datatype:Datatype, size:int_out"),
        ("Type_contiguous", "count:int, oldtype:Datatype, newtype:Datatype_out"),
        ("Type_vector", "count:int, blocklength:int, stride:int, oldtype:Datatype, newtype:Datatype_out"),
        ("Type_create_hvector", "count:int, blocklength:int, stride:aint, oldtype:Datatype, newtype:Datatype_out"),
        ("Type_hvector", "count:int, blocklength:int, stride:int, oldtype:Datatype, newtype:Datatype_out",
         {"handwritten": True, "mpi_only": True}),
        ("Type_indexed", "count:int, array_of_blocklengths:int_array, array_of_displacements:int_array, "
                         "oldtype:Datatype, newtype:Datatype_out"),
        ("Type_create_hindexed", "count:int, array_of_blocklengths:int_array, array_of_displacements:aint_array, "
                                 "oldtype:Datatype, newtype:Datatype_out"),
        ("Type_hindexed", "count:int, array_of_blocklengths:int_array, array_of_displacements:int_array, "
                          "oldtype:Datatype, newtype:Datatype_out", {"handwritten": True, "mpi_only": True}),
        ("Type_create_indexed_block", "count:int, blocklength:int, array_of_displacements:int_array, "
                                      "oldtype:Datatype, newtype:Datatype_out"),
        ("Type_create_hindexed_block", "count:int, blocklength:int, array_of_displacements:aint_array, "
                                       "oldtype:Datatype, newtype:Datatype_out"),
        ("Type_create_struct", "count:int, array_of_blocklengths:int_array, array_of_displacements:aint_array, "
                               "array_of_types:Datatype_array, newtype:Datatype_out"),
        ("Type_create_subarray", "ndims:int, array_of_sizes:int_array, array_of_subsizes:int_array, "
                                 "array_of_starts:int_array, order:int, oldtype:Datatype, newtype:Datatype_out"),
        ("Type_create_darray", "size:int, rank:int, ndims:int, array_of_gsizes:int_array, "
                               "array_of_distribs:int_array, array_of_dargs:int_array, array_of_psizes:int_array, "
                               "order:int, oldtype:Datatype, newtype:Datatype_out"),
        ("Type_create_resized", "oldtype:Datatype, lb:aint, extent:aint, newtype:Datatype_out"),
        ("Type_dup", "oldtype:Datatype, newtype:Datatype_out"),
        ("Type_commit", "datatype:Datatype_inout"),
        ("Type_free", "datatype:Datatype_inout"),
        ("Type_get_extent", "datatype:Datatype, lb:aint_out, extent:aint_out"),
        ("Type_get_true_extent", "datatype:Datatype, true_lb:aint_out, true_extent:aint_out"),
        ("Type_get_name", "datatype:Datatype, type_name:string_out(MPI_MAX_OBJECT_NAME), resultlen:int_out"),
        ("Type_set_name", "datatype:Datatype, type_name:string_in"),
        ("Get_address", "location:choice, address:aint_out"),
        ("Aint_add", "base:aint, disp:aint", {"handwritten": True, "function": "aint"}),
        ("Aint_diff", "addr1:aint, addr2:aint", {"handwritten": True, "function": "aint"}),
        ("Pack", "inbuf:choice, incount:int, datatype:Datatype, outbuf:choice, outsize:int, position:int_inout, "
                 "comm:Comm"),
        ("Unpack", "inbuf:choice, insize:int, position:int_inout, outbuf:choice, outcount:int, "
                   "datatype:Datatype, comm:Comm"),
        ("Pack_size", "incount:int, datatype:Datatype, comm:Comm, size:int_out"),
        ("Type_set_attr", "datatype:Datatype, type_keyval:int, attribute_val:aint", {"handwritten": True}),
        ("Type_get_attr", "datatype:Datatype, type_keyval:int, attribute_val:aint_out, flag:logical_out"),
        ("Type_delete_attr", "datatype:Datatype, type_keyval:int"),
        ("Type_create_keyval", "type_copy_attr_fn:copy_attr_fn(Type), type_delete_attr_fn:delete_attr_fn(Type), "
                               "type_keyval:int_out, extra_state:aint", {"handwritten": True}),
        ("Type_free_keyval", "type_keyval:int_inout", {"handwritten": True}),
        ("Type_get_envelope", "datatype:Datatype, num_integers:int_out, num_addresses:int_out, "
                              "num_datatypes:int_out, combiner:int_out"),
        ("Type_get_contents", "datatype:Datatype, max_integers:int, max_addresses:int, max_datatypes:int, "
                              "array_of_integers:int_array_out, array_of_addresses:aint_array_out, "
                              "array_of_datatypes:Datatype_array_out"),
        # external32 (the only datarep): positions and sizes are address-sized.
        ("Pack_external", "datarep:string_in, inbuf:choice, incount:int, datatype:Datatype, outbuf:choice, "
                          "outsize:aint, position:aint_inout"),
        ("Unpack_external", "datarep:string_in, inbuf:choice, insize:aint, position:aint_inout, outbuf:choice, "
                            "outcount:int, datatype:Datatype"),
        ("Pack_external_size", "datarep:string_in, incount:int, datatype:Datatype, size:aint_out"),
        # The C calls give the predefined types, which are the Fortran ones of
        # that kind: MPI_INTEGER1/2/4/8, MPI_REAL4/8, MPI_COMPLEX8/16 (and
        # MPI_LONG_DOUBLE, gfortran's REAL(KIND=10), for more than 15 digits).
        ("Type_match_size", "typeclass:int, size:int, datatype:Datatype_out"),
        ("Type_create_f90_integer", "r:int, newtype:Datatype_out"),
        ("Type_create_f90_real", "p:int, r:int, newtype:Datatype_out"),
        ("Type_create_f90_complex", "p:int, r:int, newtype:Datatype_out"),
        # The MPI_Count forms; the status setters change the program's status.
        ("Type_size_x", "datatype:Datatype, size:count_out"),
        ("Type_get_extent_x", "datatype:Datatype, lb:count_out, extent:count_out"),
        ("Type_get_true_extent_x", "datatype:Datatype, true_lb:count_out, true_extent:count_out"),
        ("Get_elements_x", "status:status_in, datatype:Datatype, count:count_out"),
        ("Status_set_elements", "status:status_inout, datatype:Datatype, count:int"),
        ("Status_set_elements_x", "status:status_inout, datatype:Datatype, count:count"),
        ("Status_set_cancelled", "status:status_inout, flag:logical"),
    ],
}

# Partitioned point-to-point communication (MPI 4.0 chapter 4): requests
# like the persistent ones, so they join the request family's modules (which
# mpi.f90 and mpi_f08.f90 already use).
PARTITIONED = [
    ("Psend_init", "buf:choice, partitions:int, count:count, datatype:Datatype, dest:int, tag:int, comm:Comm, "
                   "info:Info, request:Request_out"),
    ("Precv_init", "buf:choice, partitions:int, count:count, datatype:Datatype, source:int, tag:int, comm:Comm, "
                   "info:Info, request:Request_out"),
    ("Pready", "partition:int, request:Request"),
    ("Pready_range", "partition_low:int, partition_high:int, request:Request"),
    ("Pready_list", "length:int, array_of_partitions:int_array, request:Request"),
    ("Parrived", "request:Request, partition:int, flag:logical_out"),
]
FAMILIES["request"] = FAMILIES["request"] + PARTITIONED

# Large-count forms whose parameters are not the int form's with wider kinds,
# one for one: the _c form's own parameter list.
LARGE_COUNT_PARAMS = {
    "Type_get_envelope": "datatype:Datatype, num_integers:count_out, num_addresses:count_out, "
                         "num_large_counts:count_out, num_datatypes:count_out, combiner:int_out",
    "Type_get_contents": "datatype:Datatype, max_integers:count, max_addresses:count, max_large_counts:count, "
                         "max_datatypes:count, array_of_integers:int_array_out, array_of_addresses:aint_array_out, "
                         "array_of_large_counts:count_array_out, array_of_datatypes:Datatype_array_out",
}

# Large-count forms mpi_f08 cannot have: a generic's two specifics must differ
# in the type, kind or rank of an argument the call cannot leave out, and
# these differ only where MPI_COUNT_KIND and MPI_ADDRESS_KIND are the same
# kind (8 bytes, as on every platform Tern builds for) or in a procedure
# argument's interface, which does not tell specifics apart. generate.py
# checks that each is indeed indistinguishable.
LARGE_COUNT_LEFT_OUT = {
    "Type_get_extent": "lb and extent: MPI_Aint in the int form, MPI_Count in the _c form",
    "Type_get_true_extent": "true_lb and true_extent: MPI_Aint in the int form, MPI_Count in the _c form",
    "Type_create_resized": "lb and extent: MPI_Aint in the int form, MPI_Count in the _c form",
    "File_get_type_extent": "extent: MPI_Aint in the int form, MPI_Count in the _c form",
    "Op_create": "user_fn: MPI_User_function or MPI_User_function_c, a procedure argument "
                 "(MPI_Op_create_c is a procedure of its own name, written by hand)",
}

# Forms written by hand, not generated: mpi_f08's procedures of their own
# names for the large-count calls whose callbacks alone differ from the int
# forms' (src/mpi_f08.f90; src/datarep.cpp, src/user_op_c.cpp). MPI_Op_create_c
# is among them too; it is not listed since no _c call is (the generics
# above cover the rest).
HANDWRITTEN = ["Register_datarep_c"]

# C functions with no Fortran form: the handle conversions are C's own.
C_ONLY = ["Comm_c2f", "Comm_f2c", "Type_c2f", "Type_f2c", "Op_c2f", "Op_f2c", "Request_c2f", "Request_f2c",
          "Group_c2f", "Group_f2c", "Message_c2f", "Message_f2c", "Info_c2f", "Info_f2c", "File_c2f", "File_f2c",
          "Win_c2f", "Win_f2c", "Errhandler_c2f", "Errhandler_f2c", "Session_c2f", "Session_f2c",
          # The status conversions are C's; mpi_f08's MPI_Status_f2f08 and
          # MPI_Status_f082f are written in src/mpi_f08.f90 and src/status.cpp.
          "Status_c2f", "Status_f2c", "Status_c2f08", "Status_f082c", "Status_f2f08", "Status_f082f"]
