/* MPI attribute caching (keyvals on communicators and datatypes) and datatype decoding
 * (MPI_Type_get_envelope/get_contents), included by mpi.h inside its extern "C" block with TERN_MPI_API
 * defined: include mpi.h, not this file. */
#ifndef TERN_MPI_ATTRIBUTES_H
#define TERN_MPI_ATTRIBUTES_H
#ifndef TERN_MPI_H
#error "include mpi.h, which includes mpi_attributes.h"
#endif

/* --- Attribute caching. A keyval names an attribute on objects of one kind; its copy callback decides what a
 * duplicate (MPI_Comm_dup, MPI_Comm_dup_with_info, MPI_Type_dup) receives, its delete callback runs when the
 * value goes (MPI_*_delete_attr, a replacing MPI_*_set_attr, MPI_*_free, and for MPI_COMM_SELF and then
 * MPI_COMM_WORLD at the start of MPI_Finalize, newest first). A callback that returns an error makes the
 * call fail with that code. A freed keyval lives on, unusable, until its last attribute is deleted. */
#define MPI_KEYVAL_INVALID (-1)
/* Copy: set *flag to 1 and *(void **)attribute_val_out to the copy's value, or *flag to 0 for none. */
typedef int MPI_Comm_copy_attr_function(MPI_Comm oldcomm, int comm_keyval, void *extra_state,
                                        void *attribute_val_in, void *attribute_val_out, int *flag);
typedef int MPI_Comm_delete_attr_function(MPI_Comm comm, int comm_keyval, void *attribute_val, void *extra_state);
typedef int MPI_Type_copy_attr_function(MPI_Datatype oldtype, int type_keyval, void *extra_state,
                                        void *attribute_val_in, void *attribute_val_out, int *flag);
typedef int MPI_Type_delete_attr_function(MPI_Datatype datatype, int type_keyval, void *attribute_val,
                                          void *extra_state);
/* The predefined callbacks: NULL_COPY gives the copy no attribute, DUP copies the value, NULL_DELETE does
 * nothing. */
int MPI_COMM_NULL_COPY_FN(MPI_Comm oldcomm, int comm_keyval, void *extra_state, void *attribute_val_in,
                          void *attribute_val_out, int *flag);
int MPI_COMM_DUP_FN(MPI_Comm oldcomm, int comm_keyval, void *extra_state, void *attribute_val_in,
                    void *attribute_val_out, int *flag);
int MPI_COMM_NULL_DELETE_FN(MPI_Comm comm, int comm_keyval, void *attribute_val, void *extra_state);
int MPI_TYPE_NULL_COPY_FN(MPI_Datatype oldtype, int type_keyval, void *extra_state, void *attribute_val_in,
                          void *attribute_val_out, int *flag);
int MPI_TYPE_DUP_FN(MPI_Datatype oldtype, int type_keyval, void *extra_state, void *attribute_val_in,
                    void *attribute_val_out, int *flag);
int MPI_TYPE_NULL_DELETE_FN(MPI_Datatype datatype, int type_keyval, void *attribute_val, void *extra_state);
/* comm_keyval receives the new keyval; extra_state is handed to both callbacks. */
TERN_MPI_API(int, Comm_create_keyval, (MPI_Comm_copy_attr_function *comm_copy_attr_fn,
                                       MPI_Comm_delete_attr_function *comm_delete_attr_fn, int *comm_keyval,
                                       void *extra_state))
/* Sets *comm_keyval to MPI_KEYVAL_INVALID. */
TERN_MPI_API(int, Comm_free_keyval, (int *comm_keyval))
TERN_MPI_API(int, Comm_set_attr, (MPI_Comm comm, int comm_keyval, void *attribute_val))
/* attribute_val is a void **: receives the value set (for the predefined keys, a pointer to an int). */
TERN_MPI_API(int, Comm_get_attr, (MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag))
TERN_MPI_API(int, Comm_delete_attr, (MPI_Comm comm, int comm_keyval))
TERN_MPI_API(int, Type_create_keyval, (MPI_Type_copy_attr_function *type_copy_attr_fn,
                                       MPI_Type_delete_attr_function *type_delete_attr_fn, int *type_keyval,
                                       void *extra_state))
TERN_MPI_API(int, Type_free_keyval, (int *type_keyval))
TERN_MPI_API(int, Type_set_attr, (MPI_Datatype datatype, int type_keyval, void *attribute_val))
/* attribute_val is a void **. */
TERN_MPI_API(int, Type_get_attr, (MPI_Datatype datatype, int type_keyval, void *attribute_val, int *flag))
TERN_MPI_API(int, Type_delete_attr, (MPI_Datatype datatype, int type_keyval))
/* MPI-1's forms of the communicator calls (removed from the standard, still called by old programs). */
typedef MPI_Comm_copy_attr_function MPI_Copy_function;
typedef MPI_Comm_delete_attr_function MPI_Delete_function;
int MPI_NULL_COPY_FN(MPI_Comm oldcomm, int keyval, void *extra_state, void *attribute_val_in,
                     void *attribute_val_out, int *flag);
int MPI_DUP_FN(MPI_Comm oldcomm, int keyval, void *extra_state, void *attribute_val_in, void *attribute_val_out,
               int *flag);
int MPI_NULL_DELETE_FN(MPI_Comm comm, int keyval, void *attribute_val, void *extra_state);
TERN_MPI_API(int, Keyval_create, (MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn, int *keyval,
                                  void *extra_state))
TERN_MPI_API(int, Keyval_free, (int *keyval))
TERN_MPI_API(int, Attr_put, (MPI_Comm comm, int keyval, void *attribute_val))
TERN_MPI_API(int, Attr_get, (MPI_Comm comm, int keyval, void *attribute_val, int *flag))
TERN_MPI_API(int, Attr_delete, (MPI_Comm comm, int keyval))

/* --- Datatype decoding: how a datatype was made. Predefined types are MPI_COMBINER_NAMED (and have no
 * contents); MPI_Type_hvector and MPI_Type_hindexed report MPI_COMBINER_HVECTOR and MPI_COMBINER_HINDEXED,
 * so the _INTEGER combiners are never returned. */
#define MPI_COMBINER_NAMED 1
#define MPI_COMBINER_DUP 2
#define MPI_COMBINER_CONTIGUOUS 3
#define MPI_COMBINER_VECTOR 4
#define MPI_COMBINER_HVECTOR_INTEGER 5
#define MPI_COMBINER_HVECTOR 6
#define MPI_COMBINER_INDEXED 7
#define MPI_COMBINER_HINDEXED_INTEGER 8
#define MPI_COMBINER_HINDEXED 9
#define MPI_COMBINER_INDEXED_BLOCK 10
#define MPI_COMBINER_HINDEXED_BLOCK 11
#define MPI_COMBINER_STRUCT_INTEGER 12
#define MPI_COMBINER_STRUCT 13
#define MPI_COMBINER_SUBARRAY 14
#define MPI_COMBINER_DARRAY 15
#define MPI_COMBINER_F90_REAL 16
#define MPI_COMBINER_F90_COMPLEX 17
#define MPI_COMBINER_F90_INTEGER 18
#define MPI_COMBINER_RESIZED 19
/* How many integers, addresses and datatypes MPI_Type_get_contents returns, and the constructor. */
TERN_MPI_API(int, Type_get_envelope, (MPI_Datatype datatype, int *num_integers, int *num_addresses,
                                      int *num_datatypes, int *combiner))
/* The constructor's arguments in the standard's order. Derived datatypes returned are new handles the caller
 * frees; predefined ones are returned as they are. MPI_ERR_TYPE for a predefined datatype, MPI_ERR_ARG when
 * an array is shorter than the envelope says. */
TERN_MPI_API(int, Type_get_contents, (MPI_Datatype datatype, int max_integers, int max_addresses,
                                      int max_datatypes, int array_of_integers[], MPI_Aint array_of_addresses[],
                                      MPI_Datatype array_of_datatypes[]))

#endif /* TERN_MPI_ATTRIBUTES_H */
