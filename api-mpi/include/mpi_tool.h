/* The MPI tool information interface (MPI 4.0, "The MPI Tool Information Interface"), included by mpi.h inside
 * its extern "C" block with TERN_MPI_API defined: include mpi.h, not this file. C only: the standard defines
 * no Fortran bindings for it.
 *
 * What Tern exposes through it:
 *  - control variables: every TERN_* configuration variable under its own name, with the value in effect in
 *    this process. The configuration is read once when the process starts, so every control variable is
 *    read-only (MPI_T_cvar_write: MPI_T_ERR_CVAR_SET_NEVER).
 *  - performance variables: the tag matcher's queues (posted receives, unexpected messages), the tagged
 *    messages this process has sent, in all and per transport, and the malformed messages it dropped.
 *  - categories grouping them, one source (the process's monotonic clock) and no events.
 *
 * The calls may be made before MPI_Init and after MPI_Finalize, from any thread, between MPI_T_init_thread
 * and the matching MPI_T_finalize (they nest). They report errors by their return value only: error handlers
 * are not involved. Handles are ints, as elsewhere in Tern's MPI. Performance variables read the engine's
 * state: in a process whose MPI runs below MPI_THREAD_MULTIPLE (and without a progress thread), read them
 * from the thread that may call MPI. */
#ifndef TERN_MPI_TOOL_H
#define TERN_MPI_TOOL_H
#ifndef TERN_MPI_H
#error "include mpi.h, which includes mpi_tool.h"
#endif

typedef int MPI_T_enum;
typedef int MPI_T_cvar_handle;
typedef int MPI_T_pvar_handle;
typedef int MPI_T_pvar_session;
typedef int MPI_T_event_registration;
typedef int MPI_T_event_instance;

#define MPI_T_ENUM_NULL ((MPI_T_enum)0)
#define MPI_T_CVAR_HANDLE_NULL ((MPI_T_cvar_handle)0)
#define MPI_T_PVAR_HANDLE_NULL ((MPI_T_pvar_handle)0)
#define MPI_T_PVAR_SESSION_NULL ((MPI_T_pvar_session)0)
#define MPI_T_EVENT_REGISTRATION_NULL ((MPI_T_event_registration)0)
/* Every handle of a session, for MPI_T_pvar_start, _stop and _reset. */
#define MPI_T_PVAR_ALL_HANDLES ((MPI_T_pvar_handle)-1)

/* Verbosity: audience (user, tuner, MPI developer) by detail, in increasing order. */
#define MPI_T_VERBOSITY_USER_BASIC 1
#define MPI_T_VERBOSITY_USER_DETAIL 2
#define MPI_T_VERBOSITY_USER_ALL 3
#define MPI_T_VERBOSITY_TUNER_BASIC 4
#define MPI_T_VERBOSITY_TUNER_DETAIL 5
#define MPI_T_VERBOSITY_TUNER_ALL 6
#define MPI_T_VERBOSITY_MPIDEV_BASIC 7
#define MPI_T_VERBOSITY_MPIDEV_DETAIL 8
#define MPI_T_VERBOSITY_MPIDEV_ALL 9

/* What kind of MPI object a variable is bound to. */
#define MPI_T_BIND_NO_OBJECT 0
#define MPI_T_BIND_MPI_COMM 1
#define MPI_T_BIND_MPI_DATATYPE 2
#define MPI_T_BIND_MPI_ERRHANDLER 3
#define MPI_T_BIND_MPI_FILE 4
#define MPI_T_BIND_MPI_GROUP 5
#define MPI_T_BIND_MPI_OP 6
#define MPI_T_BIND_MPI_REQUEST 7
#define MPI_T_BIND_MPI_WIN 8
#define MPI_T_BIND_MPI_MESSAGE 9
#define MPI_T_BIND_MPI_INFO 10
#define MPI_T_BIND_MPI_SESSION 11

/* Who may change a control variable, and when. */
#define MPI_T_SCOPE_CONSTANT 0
#define MPI_T_SCOPE_READONLY 1
#define MPI_T_SCOPE_LOCAL 2
#define MPI_T_SCOPE_GROUP 3
#define MPI_T_SCOPE_GROUP_EQ 4
#define MPI_T_SCOPE_ALL 5
#define MPI_T_SCOPE_ALL_EQ 6

/* Classes of performance variables. */
#define MPI_T_PVAR_CLASS_STATE 0
#define MPI_T_PVAR_CLASS_LEVEL 1
#define MPI_T_PVAR_CLASS_SIZE 2
#define MPI_T_PVAR_CLASS_PERCENTAGE 3
#define MPI_T_PVAR_CLASS_HIGHWATERMARK 4
#define MPI_T_PVAR_CLASS_LOWWATERMARK 5
#define MPI_T_PVAR_CLASS_COUNTER 6
#define MPI_T_PVAR_CLASS_AGGREGATE 7
#define MPI_T_PVAR_CLASS_TIMER 8
#define MPI_T_PVAR_CLASS_GENERIC 9

/* Error classes of the interface (MPI_Error_string knows them; they are at most MPI_ERR_LASTCODE). */
#define MPI_T_ERR_MEMORY 60
#define MPI_T_ERR_NOT_INITIALIZED 61
#define MPI_T_ERR_CANNOT_INIT 62
#define MPI_T_ERR_INVALID_INDEX 63
#define MPI_T_ERR_INVALID_ITEM 64
#define MPI_T_ERR_INVALID_HANDLE 65
#define MPI_T_ERR_OUT_OF_HANDLES 66
#define MPI_T_ERR_OUT_OF_SESSIONS 67
#define MPI_T_ERR_INVALID_SESSION 68
#define MPI_T_ERR_CVAR_SET_NOT_NOW 69
#define MPI_T_ERR_CVAR_SET_NEVER 70
#define MPI_T_ERR_PVAR_NO_STARTSTOP 71
#define MPI_T_ERR_PVAR_NO_WRITE 72
#define MPI_T_ERR_PVAR_NO_ATOMIC 73
#define MPI_T_ERR_INVALID_NAME 74
#define MPI_T_ERR_INVALID 75
#define MPI_T_ERR_NOT_SUPPORTED 76

typedef enum MPI_T_cb_safety {
  MPI_T_CB_REQUIRE_NONE = 0,
  MPI_T_CB_REQUIRE_MPI_RESTRICTED,
  MPI_T_CB_REQUIRE_THREAD_SAFE,
  MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE
} MPI_T_cb_safety;

typedef enum MPI_T_source_order { MPI_T_SOURCE_ORDERED = 0, MPI_T_SOURCE_UNORDERED } MPI_T_source_order;

typedef void MPI_T_event_cb_function(MPI_T_event_instance event_instance,
                                     MPI_T_event_registration event_registration, MPI_T_cb_safety cb_safety,
                                     void *user_data);
typedef void MPI_T_event_free_cb_function(MPI_T_event_registration event_registration, MPI_T_cb_safety cb_safety,
                                          void *user_data);
typedef void MPI_T_event_dropped_cb_function(MPI_Count count, MPI_T_event_registration event_registration,
                                             int source_index, MPI_T_cb_safety cb_safety, void *user_data);

/* --- Set-up. required: any MPI_THREAD_* level; provided: MPI_THREAD_MULTIPLE. */
TERN_MPI_API(int, T_init_thread, (int required, int *provided))
TERN_MPI_API(int, T_finalize, (void))

/* --- Strings. Every (name, name_len) pair: *name_len in, the room in name (0: name may be NULL and nothing is
 * written); out, the bytes written with the terminating null, or the text's full length with its null when
 * nothing was written. A text longer than the room is cut to fit, terminated. A NULL name_len returns
 * nothing. */

/* --- Enumerations (the values of a control variable that is a switch or a mode). */
TERN_MPI_API(int, T_enum_get_info, (MPI_T_enum enumtype, int *num, char *name, int *name_len))
TERN_MPI_API(int, T_enum_get_item, (MPI_T_enum enumtype, int index, int *value, char *name, int *name_len))

/* --- Control variables (TERN_*). Sizes are MPI_UNSIGNED_LONG, seconds MPI_UNSIGNED, lists and interface
 * names MPI_CHAR (count: the bytes with the terminating null), switches and modes MPI_INT with an enumeration. */
TERN_MPI_API(int, T_cvar_get_num, (int *num_cvar))
TERN_MPI_API(int, T_cvar_get_info, (int cvar_index, char *name, int *name_len, int *verbosity,
                                    MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc, int *desc_len,
                                    int *bind, int *scope))
TERN_MPI_API(int, T_cvar_get_index, (const char *name, int *cvar_index))
TERN_MPI_API(int, T_cvar_handle_alloc, (int cvar_index, void *obj_handle, MPI_T_cvar_handle *handle, int *count))
TERN_MPI_API(int, T_cvar_handle_free, (MPI_T_cvar_handle *handle))
TERN_MPI_API(int, T_cvar_read, (MPI_T_cvar_handle handle, void *buf))
TERN_MPI_API(int, T_cvar_write, (MPI_T_cvar_handle handle, const void *buf))

/* --- Performance variables: MPI_UNSIGNED_LONG_LONG each, bound to no object. Levels (the matcher's queues)
 * are continuous and read-only; counters start stopped in a handle and count while it is started. */
TERN_MPI_API(int, T_pvar_get_num, (int *num_pvar))
TERN_MPI_API(int, T_pvar_get_info, (int pvar_index, char *name, int *name_len, int *verbosity, int *var_class,
                                    MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc, int *desc_len,
                                    int *bind, int *readonly, int *continuous, int *atomic))
TERN_MPI_API(int, T_pvar_get_index, (const char *name, int var_class, int *pvar_index))
TERN_MPI_API(int, T_pvar_session_create, (MPI_T_pvar_session *session))
TERN_MPI_API(int, T_pvar_session_free, (MPI_T_pvar_session *session))
TERN_MPI_API(int, T_pvar_handle_alloc, (MPI_T_pvar_session session, int pvar_index, void *obj_handle,
                                        MPI_T_pvar_handle *handle, int *count))
TERN_MPI_API(int, T_pvar_handle_free, (MPI_T_pvar_session session, MPI_T_pvar_handle *handle))
TERN_MPI_API(int, T_pvar_start, (MPI_T_pvar_session session, MPI_T_pvar_handle handle))
TERN_MPI_API(int, T_pvar_stop, (MPI_T_pvar_session session, MPI_T_pvar_handle handle))
TERN_MPI_API(int, T_pvar_read, (MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf))
TERN_MPI_API(int, T_pvar_write, (MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void *buf))
TERN_MPI_API(int, T_pvar_reset, (MPI_T_pvar_session session, MPI_T_pvar_handle handle))
TERN_MPI_API(int, T_pvar_readreset, (MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf))

/* --- Categories. */
TERN_MPI_API(int, T_category_get_num, (int *num_cat))
TERN_MPI_API(int, T_category_get_info, (int cat_index, char *name, int *name_len, char *desc, int *desc_len,
                                        int *num_cvars, int *num_pvars, int *num_categories))
TERN_MPI_API(int, T_category_get_num_events, (int cat_index, int *num_events))
TERN_MPI_API(int, T_category_get_index, (const char *name, int *cat_index))
TERN_MPI_API(int, T_category_get_cvars, (int cat_index, int len, int indices[]))
TERN_MPI_API(int, T_category_get_pvars, (int cat_index, int len, int indices[]))
TERN_MPI_API(int, T_category_get_categories, (int cat_index, int len, int indices[]))
TERN_MPI_API(int, T_category_get_events, (int cat_index, int len, int indices[]))
TERN_MPI_API(int, T_category_changed, (int *update_number))

/* --- Sources of event timestamps: one, the process's monotonic clock in nanoseconds. */
TERN_MPI_API(int, T_source_get_num, (int *num_sources))
TERN_MPI_API(int, T_source_get_info, (int source_index, char *name, int *name_len, char *desc, int *desc_len,
                                      MPI_T_source_order *ordering, MPI_Count *ticks_per_second,
                                      MPI_Count *max_ticks, MPI_Info *info))
TERN_MPI_API(int, T_source_get_timestamp, (int source_index, MPI_Count *timestamp))

/* --- Events: Tern defines none, so every index, name, registration and instance is invalid. */
TERN_MPI_API(int, T_event_get_num, (int *num_events))
TERN_MPI_API(int, T_event_get_info, (int event_index, char *name, int *name_len, int *verbosity,
                                     MPI_Datatype array_of_datatypes[], MPI_Aint array_of_displacements[],
                                     int *num_elements, MPI_T_enum *enumtype, MPI_Info *info, char *desc,
                                     int *desc_len, int *bind))
TERN_MPI_API(int, T_event_get_index, (const char *name, int *event_index))
TERN_MPI_API(int, T_event_handle_alloc, (int event_index, void *obj_handle, MPI_Info info,
                                         MPI_T_event_registration *event_registration))
TERN_MPI_API(int, T_event_handle_set_info, (MPI_T_event_registration event_registration, MPI_Info info))
TERN_MPI_API(int, T_event_handle_get_info, (MPI_T_event_registration event_registration, MPI_Info *info_used))
TERN_MPI_API(int, T_event_register_callback, (MPI_T_event_registration event_registration,
                                              MPI_T_cb_safety cb_safety, MPI_Info info, void *user_data,
                                              MPI_T_event_cb_function event_cb_function))
TERN_MPI_API(int, T_event_callback_set_info, (MPI_T_event_registration event_registration,
                                              MPI_T_cb_safety cb_safety, MPI_Info info))
TERN_MPI_API(int, T_event_callback_get_info, (MPI_T_event_registration event_registration,
                                              MPI_T_cb_safety cb_safety, MPI_Info *info_used))
TERN_MPI_API(int, T_event_handle_free, (MPI_T_event_registration event_registration, void *user_data,
                                        MPI_T_event_free_cb_function free_cb_function))
TERN_MPI_API(int, T_event_set_dropped_handler, (MPI_T_event_registration event_registration,
                                                MPI_T_event_dropped_cb_function dropped_cb_function))
TERN_MPI_API(int, T_event_read, (MPI_T_event_instance event_instance, int element_index, void *buffer))
TERN_MPI_API(int, T_event_copy, (MPI_T_event_instance event_instance, void *buffer))
TERN_MPI_API(int, T_event_get_timestamp, (MPI_T_event_instance event_instance, MPI_Count *event_timestamp))
TERN_MPI_API(int, T_event_get_source, (MPI_T_event_instance event_instance, int *source_index))

#endif /* TERN_MPI_TOOL_H */
