//! The call table: every MPI function DUMPI labels, with the layout of
//! its record's arguments (what the decoder needs to read or skip it)
//! and its [`Role`], which says how the decoded arguments read as a
//! recorded call (`calls.rs`).

/// Number of MPI functions DUMPI labels (`DUMPI_ALL_FUNCTIONS`).
pub const NUM_FUNCTIONS: usize = 290;

/// The MPI name of DUMPI function label `f` (`"?"` if out of range).
pub fn function_name(f: usize) -> &'static str {
    FUNCTIONS.get(f).map_or("?", |x| x.0)
}

/// The argument layout of label `f` (see [`FUNCTIONS`]).
pub(super) fn layout(f: usize) -> &'static str {
    FUNCTIONS[f].1
}

/// What a function's record means for the replay: the functions that
/// produce operations or define what later ones need (persistent
/// requests, communicators, datatype sizes). Functions of one role share
/// their argument positions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// `MPI_Send`, `Bsend`, `Ssend`, `Rsend`.
    Send,
    /// `MPI_Isend`, `Ibsend`, `Issend`, `Irsend`.
    Isend,
    /// `MPI_Send_init` and its forms.
    SendInit,
    /// `MPI_Recv`.
    Recv,
    /// `MPI_Irecv`.
    Irecv,
    /// `MPI_Recv_init`.
    RecvInit,
    /// `MPI_Start`.
    Start,
    /// `MPI_Startall`.
    Startall,
    /// `MPI_Request_free`.
    RequestFree,
    /// `MPI_Sendrecv`.
    Sendrecv,
    /// `MPI_Sendrecv_replace`.
    SendrecvReplace,
    /// `MPI_Wait`.
    Wait,
    /// `MPI_Test`.
    Test,
    /// `MPI_Waitall`.
    Waitall,
    /// `MPI_Waitany`.
    Waitany,
    /// `MPI_Testany`.
    Testany,
    /// `MPI_Waitsome`.
    Waitsome,
    /// `MPI_Testsome`.
    Testsome,
    /// `MPI_Testall`.
    Testall,
    /// `MPI_Barrier`.
    Barrier,
    /// `MPI_Bcast`.
    Bcast,
    /// `MPI_Reduce`.
    Reduce,
    /// `MPI_Allreduce`.
    Allreduce,
    /// `MPI_Scan`.
    Scan,
    /// `MPI_Exscan`.
    Exscan,
    /// `MPI_Allgather`.
    Allgather,
    /// `MPI_Alltoall`.
    Alltoall,
    /// `MPI_Allgatherv`.
    Allgatherv,
    /// `MPI_Alltoallv`.
    Alltoallv,
    /// `MPI_Alltoallw`.
    Alltoallw,
    /// `MPI_Reduce_scatter`.
    ReduceScatter,
    /// `MPI_Gather` (root-dependent record).
    Gather,
    /// `MPI_Scatter` (root-dependent record).
    Scatter,
    /// `MPI_Gatherv` (root-dependent record).
    Gatherv,
    /// `MPI_Scatterv` (root-dependent record).
    Scatterv,
    /// `MPI_Comm_dup`.
    CommDup,
    /// `MPI_Comm_split`.
    CommSplit,
    /// `MPI_Comm_create`.
    CommCreate,
    /// `MPI_Comm_group`.
    CommGroup,
    /// `MPI_Group_incl`.
    GroupIncl,
    /// `MPI_Group_excl`.
    GroupExcl,
    /// `MPI_Group_range_incl`.
    GroupRangeIncl,
    /// `MPI_Group_range_excl`.
    GroupRangeExcl,
    /// `MPI_Group_union`.
    GroupUnion,
    /// `MPI_Group_intersection`.
    GroupIntersection,
    /// `MPI_Group_difference`.
    GroupDifference,
    /// `MPI_Group_free`.
    GroupFree,
    /// `MPI_Comm_free`.
    CommFree,
    /// `MPI_Cart_create`.
    CartCreate,
    /// `MPI_Cart_sub`.
    CartSub,
    /// `MPI_Graph_create`.
    GraphCreate,
    /// `MPI_Intercomm_create`, `MPI_Intercomm_merge`, and the dynamic
    /// process calls that make intercommunicators (`Comm_accept`,
    /// `Comm_connect`, `Comm_join`): rejected.
    Intercomm,
    /// `MPI_Type_contiguous`.
    TypeContiguous,
    /// `MPI_Type_vector`, `Type_hvector`, `Type_create_hvector`.
    TypeVector,
    /// `MPI_Type_indexed`, `Type_hindexed`, `Type_create_hindexed`.
    TypeIndexed,
    /// `MPI_Type_create_indexed_block`.
    TypeIndexedBlock,
    /// `MPI_Type_create_resized`.
    TypeResized,
    /// `MPI_Type_create_subarray`.
    TypeSubarray,
    /// `MPI_Type_struct`, `Type_create_struct`.
    TypeStruct,
    /// `MPI_Type_dup`.
    TypeDup,
    /// Everything else (`Init`, `Comm_rank`, `Wtime`, `Probe`, ...): no
    /// operation.
    Other,
}

/// The role of label `f`.
pub(super) fn role(f: usize) -> Role {
    FUNCTIONS[f].2
}

/// MPI name, argument layout and [`Role`] of every DUMPI function label
/// (index = label). Layout letters: `i` int (u32), `s` handle (u16: comm, datatype,
/// group, keyval, info, win, file, errhandler), `b` u8 (op, comparison,
/// thread level, ...), `A`/`R` int or request array, `D` datatype array,
/// `S`/`T` status(es), `C` char array, `B` u8 array, `q` u64, `G` array of
/// int arrays, `I` Init's argv, `Y`/`Z` int array (one int in old
/// versions); `g` root-dependent (Gather family); `?` unknown layout.
/// Transcribed from the field order of sst-dumpi's `dumpiio.c`.
#[rustfmt::skip]
const FUNCTIONS: [(&str, &str, Role); NUM_FUNCTIONS] = {
    use Role::*;
    [
        ("MPI_Send", "isiis", Send),                          // 0
        ("MPI_Recv", "isiisS", Recv),                         // 1
        ("MPI_Get_count", "Ssi", Other),                      // 2
        ("MPI_Bsend", "isiis", Send),                         // 3
        ("MPI_Ssend", "isiis", Send),                         // 4
        ("MPI_Rsend", "isiis", Send),                         // 5
        ("MPI_Buffer_attach", "i", Other),                    // 6
        ("MPI_Buffer_detach", "i", Other),                    // 7
        ("MPI_Isend", "isiisi", Isend),                       // 8
        ("MPI_Ibsend", "isiisi", Isend),                      // 9
        ("MPI_Issend", "isiisi", Isend),                      // 10
        ("MPI_Irsend", "isiisi", Isend),                      // 11
        ("MPI_Irecv", "isiisi", Irecv),                       // 12
        ("MPI_Wait", "iS", Wait),                             // 13
        ("MPI_Test", "iiS", Test),                            // 14
        ("MPI_Request_free", "i", RequestFree),               // 15
        ("MPI_Waitany", "iRiS", Waitany),                     // 16
        ("MPI_Testany", "iRiiS", Testany),                    // 17
        ("MPI_Waitall", "iRT", Waitall),                      // 18
        ("MPI_Testall", "iRiT", Testall),                     // 19
        ("MPI_Waitsome", "iRiAT", Waitsome),                  // 20
        ("MPI_Testsome", "iRiAT", Testsome),                  // 21
        ("MPI_Iprobe", "iisiS", Other),                       // 22
        ("MPI_Probe", "iisS", Other),                         // 23
        ("MPI_Cancel", "i", Other),                           // 24
        ("MPI_Test_cancelled", "Si", Other),                  // 25
        ("MPI_Send_init", "isiisi", SendInit),                // 26
        ("MPI_Bsend_init", "isiisi", SendInit),               // 27
        ("MPI_Ssend_init", "isiisi", SendInit),               // 28
        ("MPI_Rsend_init", "isiisi", SendInit),               // 29
        ("MPI_Recv_init", "isiisi", RecvInit),                // 30
        ("MPI_Start", "i", Start),                            // 31
        ("MPI_Startall", "iR", Startall),                     // 32
        ("MPI_Sendrecv", "isiiisiisS", Sendrecv),             // 33
        ("MPI_Sendrecv_replace", "isiiiisS", SendrecvReplace),// 34
        ("MPI_Type_contiguous", "iss", TypeContiguous),       // 35
        ("MPI_Type_vector", "iiiss", TypeVector),             // 36
        ("MPI_Type_hvector", "iiiss", TypeVector),            // 37
        ("MPI_Type_indexed", "iAAss", TypeIndexed),           // 38
        ("MPI_Type_hindexed", "iAAss", TypeIndexed),          // 39
        ("MPI_Type_struct", "iAYDs", TypeStruct),             // 40
        ("MPI_Address", "i", Other),                          // 41
        ("MPI_Type_extent", "si", Other),                     // 42
        ("MPI_Type_size", "si", Other),                       // 43
        ("MPI_Type_lb", "si", Other),                         // 44
        ("MPI_Type_ub", "si", Other),                         // 45
        ("MPI_Type_commit", "s", Other),                      // 46
        ("MPI_Type_free", "s", Other),                        // 47
        ("MPI_Get_elements", "Ssi", Other),                   // 48
        ("MPI_Pack", "isiiis", Other),                        // 49
        ("MPI_Unpack", "iiiiss", Other),                      // 50
        ("MPI_Pack_size", "issi", Other),                     // 51
        ("MPI_Barrier", "s", Barrier),                        // 52
        ("MPI_Bcast", "isis", Bcast),                         // 53
        ("MPI_Gather", "g", Gather),                          // 54
        ("MPI_Gatherv", "g", Gatherv),                        // 55
        ("MPI_Scatter", "g", Scatter),                        // 56
        ("MPI_Scatterv", "g", Scatterv),                      // 57
        ("MPI_Allgather", "isiss", Allgather),                // 58
        ("MPI_Allgatherv", "iisAAss", Allgatherv),            // 59
        ("MPI_Alltoall", "isiss", Alltoall),                  // 60
        ("MPI_Alltoallv", "iAAsAAss", Alltoallv),             // 61
        ("MPI_Reduce", "isbis", Reduce),                      // 62
        ("MPI_Op_create", "ib", Other),                       // 63
        ("MPI_Op_free", "b", Other),                          // 64
        ("MPI_Allreduce", "isbs", Allreduce),                 // 65
        ("MPI_Reduce_scatter", "iAsbs", ReduceScatter),       // 66
        ("MPI_Scan", "isbs", Scan),                           // 67
        ("MPI_Group_size", "si", Other),                      // 68
        ("MPI_Group_rank", "si", Other),                      // 69
        ("MPI_Group_translate_ranks", "siAsA", Other),        // 70
        ("MPI_Group_compare", "ssb", Other),                  // 71
        ("MPI_Comm_group", "ss", CommGroup),                  // 72
        ("MPI_Group_union", "sss", GroupUnion),               // 73
        ("MPI_Group_intersection", "sss", GroupIntersection), // 74
        ("MPI_Group_difference", "sss", GroupDifference),     // 75
        ("MPI_Group_incl", "siAs", GroupIncl),                // 76
        ("MPI_Group_excl", "siAs", GroupExcl),                // 77
        ("MPI_Group_range_incl", "siGs", GroupRangeIncl),     // 78
        ("MPI_Group_range_excl", "siGs", GroupRangeExcl),     // 79
        ("MPI_Group_free", "s", GroupFree),                   // 80
        ("MPI_Comm_size", "si", Other),                       // 81
        ("MPI_Comm_rank", "si", Other),                       // 82
        ("MPI_Comm_compare", "ssb", Other),                   // 83
        ("MPI_Comm_dup", "ss", CommDup),                      // 84
        ("MPI_Comm_create", "sss", CommCreate),               // 85
        ("MPI_Comm_split", "siis", CommSplit),                // 86
        ("MPI_Comm_free", "s", CommFree),                     // 87
        ("MPI_Comm_test_inter", "si", Other),                 // 88
        ("MPI_Comm_remote_size", "si", Other),                // 89
        ("MPI_Comm_remote_group", "ss", Other),               // 90
        ("MPI_Intercomm_create", "sisiis", Intercomm),        // 91
        ("MPI_Intercomm_merge", "sis", Intercomm),            // 92
        ("MPI_Keyval_create", "s", Other),                    // 93
        ("MPI_Keyval_free", "s", Other),                      // 94
        ("MPI_Attr_put", "si", Other),                        // 95
        ("MPI_Attr_get", "sii", Other),                       // 96
        ("MPI_Attr_delete", "si", Other),                     // 97
        ("MPI_Topo_test", "sb", Other),                       // 98
        ("MPI_Cart_create", "siAAis", CartCreate),            // 99
        ("MPI_Dims_create", "iiAA", Other),                   // 100
        ("MPI_Graph_create", "isiAAis", GraphCreate),         // 101
        ("MPI_Graphdims_get", "sii", Other),                  // 102
        ("MPI_Graph_get", "iisiiAA", Other),                  // 103
        ("MPI_Cartdim_get", "si", Other),                     // 104
        ("MPI_Cart_get", "isiAAZ", Other),                    // 105
        ("MPI_Cart_rank", "isAi", Other),                     // 106
        ("MPI_Cart_coords", "isiiA", Other),                  // 107
        ("MPI_Graph_neighbors_count", "sii", Other),          // 108
        ("MPI_Graph_neighbors", "isiiA", Other),              // 109
        ("MPI_Cart_shift", "siiii", Other),                   // 110
        ("MPI_Cart_sub", "isAs", CartSub),                    // 111
        ("MPI_Cart_map", "siAAi", Other),                     // 112
        ("MPI_Graph_map", "isiAAi", Other),                   // 113
        ("MPI_Get_processor_name", "Ci", Other),              // 114
        ("MPI_Get_version", "ii", Other),                     // 115
        ("MPI_Errhandler_create", "s", Other),                // 116
        ("MPI_Errhandler_set", "ss", Other),                  // 117
        ("MPI_Errhandler_get", "ss", Other),                  // 118
        ("MPI_Errhandler_free", "s", Other),                  // 119
        ("MPI_Error_string", "iCi", Other),                   // 120
        ("MPI_Error_class", "ii", Other),                     // 121
        ("MPI_Wtime", "", Other),                             // 122
        ("MPI_Wtick", "", Other),                             // 123
        ("MPI_Init", "I", Other),                             // 124
        ("MPI_Finalize", "", Other),                          // 125
        ("MPI_Initialized", "i", Other),                      // 126
        ("MPI_Abort", "si", Other),                           // 127
        ("MPI_Pcontrol", "?", Other),                         // 128
        ("MPI_Close_port", "C", Other),                       // 129
        ("MPI_Comm_accept", "Csiss", Intercomm),              // 130
        ("MPI_Comm_connect", "Csiss", Intercomm),             // 131
        ("MPI_Comm_disconnect", "s", Other),                  // 132
        ("MPI_Comm_get_parent", "s", Other),                  // 133
        ("MPI_Comm_join", "is", Intercomm),                   // 134
        ("MPI_Comm_spawn", "?", Other),                       // 135
        ("MPI_Comm_spawn_multiple", "?", Other),              // 136
        ("MPI_Lookup_name", "CsC", Other),                    // 137
        ("MPI_Open_port", "sC", Other),                       // 138
        ("MPI_Publish_name", "CsC", Other),                   // 139
        ("MPI_Unpublish_name", "CsC", Other),                 // 140
        ("MPI_Accumulate", "isiiisbs", Other),                // 141
        ("MPI_Get", "isiiiss", Other),                        // 142
        ("MPI_Put", "isiiiss", Other),                        // 143
        ("MPI_Win_complete", "s", Other),                     // 144
        ("MPI_Win_create", "iisss", Other),                   // 145
        ("MPI_Win_fence", "bs", Other),                       // 146
        ("MPI_Win_free", "s", Other),                         // 147
        ("MPI_Win_get_group", "ss", Other),                   // 148
        ("MPI_Win_lock", "?", Other),                         // 149
        ("MPI_Win_post", "?", Other),                         // 150
        ("MPI_Win_start", "sbs", Other),                      // 151
        ("MPI_Win_test", "si", Other),                        // 152
        ("MPI_Win_unlock", "is", Other),                      // 153
        ("MPI_Win_wait", "s", Other),                         // 154
        ("MPI_Alltoallw", "iAADAADs", Alltoallw),             // 155
        ("MPI_Exscan", "isbs", Exscan),                       // 156
        ("MPI_Add_error_class", "i", Other),                  // 157
        ("MPI_Add_error_code", "ii", Other),                  // 158
        ("MPI_Add_error_string", "iC", Other),                // 159
        ("MPI_Comm_call_errhandler", "si", Other),            // 160
        ("MPI_Comm_create_keyval", "s", Other),               // 161
        ("MPI_Comm_delete_attr", "ss", Other),                // 162
        ("MPI_Comm_free_keyval", "s", Other),                 // 163
        ("MPI_Comm_get_attr", "ssi", Other),                  // 164
        ("MPI_Comm_get_name", "sCi", Other),                  // 165
        ("MPI_Comm_set_attr", "ss", Other),                   // 166
        ("MPI_Comm_set_name", "sC", Other),                   // 167
        ("MPI_File_call_errhandler", "si", Other),            // 168
        ("MPI_Grequest_complete", "i", Other),                // 169
        ("MPI_Grequest_start", "i", Other),                   // 170
        ("MPI_Init_thread", "Ibb", Other),                    // 171
        ("MPI_Is_thread_main", "i", Other),                   // 172
        ("MPI_Query_thread", "b", Other),                     // 173
        ("MPI_Status_set_cancelled", "Si", Other),            // 174
        ("MPI_Status_set_elements", "Ssi", Other),            // 175
        ("MPI_Type_create_keyval", "s", Other),               // 176
        ("MPI_Type_delete_attr", "ss", Other),                // 177
        ("MPI_Type_dup", "ss", TypeDup),                      // 178
        ("MPI_Type_free_keyval", "s", Other),                 // 179
        ("MPI_Type_get_attr", "ssi", Other),                  // 180
        ("MPI_Type_get_contents", "iiisiiiAAD", Other),       // 181
        ("MPI_Type_get_envelope", "siiib", Other),            // 182
        ("MPI_Type_get_name", "sCi", Other),                  // 183
        ("MPI_Type_set_attr", "ss", Other),                   // 184
        ("MPI_Type_set_name", "sC", Other),                   // 185
        ("MPI_Type_match_size", "bis", Other),                // 186
        ("MPI_Win_call_errhandler", "si", Other),             // 187
        ("MPI_Win_create_keyval", "s", Other),                // 188
        ("MPI_Win_delete_attr", "ss", Other),                 // 189
        ("MPI_Win_free_keyval", "s", Other),                  // 190
        ("MPI_Win_get_attr", "ssi", Other),                   // 191
        ("MPI_Win_get_name", "sCi", Other),                   // 192
        ("MPI_Win_set_attr", "ss", Other),                    // 193
        ("MPI_Win_set_name", "sC", Other),                    // 194
        ("MPI_Alloc_mem", "is", Other),                       // 195
        ("MPI_Comm_create_errhandler", "s", Other),           // 196
        ("MPI_Comm_get_errhandler", "ss", Other),             // 197
        ("MPI_Comm_set_errhandler", "ss", Other),             // 198
        ("MPI_File_create_errhandler", "s", Other),           // 199
        ("MPI_File_get_errhandler", "ss", Other),             // 200
        ("MPI_File_set_errhandler", "ss", Other),             // 201
        ("MPI_Finalized", "i", Other),                        // 202
        ("MPI_Free_mem", "", Other),                          // 203
        ("MPI_Get_address", "i", Other),                      // 204
        ("MPI_Info_create", "s", Other),                      // 205
        ("MPI_Info_delete", "sC", Other),                     // 206
        ("MPI_Info_dup", "ss", Other),                        // 207
        ("MPI_Info_free", "s", Other),                        // 208
        ("MPI_Info_get", "sCiCi", Other),                     // 209
        ("MPI_Info_get_nkeys", "si", Other),                  // 210
        ("MPI_Info_get_nthkey", "siC", Other),                // 211
        ("MPI_Info_get_valuelen", "sCii", Other),             // 212
        ("MPI_Info_set", "sCC", Other),                       // 213
        ("MPI_Pack_external", "Cisiii", Other),               // 214
        ("MPI_Pack_external_size", "Cisi", Other),            // 215
        ("MPI_Request_get_status", "iiS", Other),             // 216
        ("MPI_Type_create_darray", "iiiABAAbss", Other),      // 217
        ("MPI_Type_create_hindexed", "iAAss", TypeIndexed),   // 218
        ("MPI_Type_create_hvector", "iiiss", TypeVector),     // 219
        ("MPI_Type_create_indexed_block", "iiAss", TypeIndexedBlock),// 220
        ("MPI_Type_create_resized", "siis", TypeResized),     // 221
        ("MPI_Type_create_struct", "iAADs", TypeStruct),      // 222
        ("MPI_Type_create_subarray", "iAAAbss", TypeSubarray),// 223
        ("MPI_Type_get_extent", "sii", Other),                // 224
        ("MPI_Type_get_true_extent", "sii", Other),           // 225
        ("MPI_Unpack_external", "Ciiiis", Other),             // 226
        ("MPI_Win_create_errhandler", "s", Other),            // 227
        ("MPI_Win_get_errhandler", "ss", Other),              // 228
        ("MPI_Win_set_errhandler", "ss", Other),              // 229
        ("MPI_File_open", "sCbss", Other),                    // 230
        ("MPI_File_close", "s", Other),                       // 231
        ("MPI_File_delete", "Cs", Other),                     // 232
        ("MPI_File_set_size", "sq", Other),                   // 233
        ("MPI_File_preallocate", "sq", Other),                // 234
        ("MPI_File_get_size", "sq", Other),                   // 235
        ("MPI_File_get_group", "ss", Other),                  // 236
        ("MPI_File_get_amode", "sb", Other),                  // 237
        ("MPI_File_set_info", "ss", Other),                   // 238
        ("MPI_File_get_info", "ss", Other),                   // 239
        ("MPI_File_set_view", "sqssCs", Other),               // 240
        ("MPI_File_get_view", "sqssC", Other),                // 241
        ("MPI_File_read_at", "sqisS", Other),                 // 242
        ("MPI_File_read_at_all", "?", Other),                 // 243
        ("MPI_File_write_at", "?", Other),                    // 244
        ("MPI_File_write_at_all", "?", Other),                // 245
        ("MPI_File_iread_at", "?", Other),                    // 246
        ("MPI_File_iwrite_at", "?", Other),                   // 247
        ("MPI_File_read", "?", Other),                        // 248
        ("MPI_File_read_all", "?", Other),                    // 249
        ("MPI_File_write", "?", Other),                       // 250
        ("MPI_File_write_all", "?", Other),                   // 251
        ("MPI_File_iread", "?", Other),                       // 252
        ("MPI_File_iwrite", "?", Other),                      // 253
        ("MPI_File_seek", "?", Other),                        // 254
        ("MPI_File_get_position", "?", Other),                // 255
        ("MPI_File_get_byte_offset", "?", Other),             // 256
        ("MPI_File_read_shared", "?", Other),                 // 257
        ("MPI_File_write_shared", "?", Other),                // 258
        ("MPI_File_iread_shared", "?", Other),                // 259
        ("MPI_File_iwrite_shared", "?", Other),               // 260
        ("MPI_File_read_ordered", "?", Other),                // 261
        ("MPI_File_write_ordered", "?", Other),               // 262
        ("MPI_File_seek_shared", "?", Other),                 // 263
        ("MPI_File_get_position_shared", "?", Other),         // 264
        ("MPI_File_read_at_all_begin", "?", Other),           // 265
        ("MPI_File_read_at_all_end", "?", Other),             // 266
        ("MPI_File_write_at_all_begin", "?", Other),          // 267
        ("MPI_File_write_at_all_end", "?", Other),            // 268
        ("MPI_File_read_all_begin", "?", Other),              // 269
        ("MPI_File_read_all_end", "?", Other),                // 270
        ("MPI_File_write_all_begin", "?", Other),             // 271
        ("MPI_File_write_all_end", "?", Other),               // 272
        ("MPI_File_read_ordered_begin", "?", Other),          // 273
        ("MPI_File_read_ordered_end", "?", Other),            // 274
        ("MPI_File_write_ordered_begin", "?", Other),         // 275
        ("MPI_File_write_ordered_end", "?", Other),           // 276
        ("MPI_File_get_type_extent", "?", Other),             // 277
        ("MPI_Register_datarep", "?", Other),                 // 278
        ("MPI_File_set_atomicity", "?", Other),               // 279
        ("MPI_File_get_atomicity", "?", Other),               // 280
        ("MPI_File_sync", "?", Other),                        // 281
        ("MPIO_Test", "?", Other),                            // 282
        ("MPIO_Wait", "?", Other),                            // 283
        ("MPIO_Testall", "?", Other),                         // 284
        ("MPIO_Waitall", "?", Other),                         // 285
        ("MPIO_Testany", "?", Other),                         // 286
        ("MPIO_Waitany", "?", Other),                         // 287
        ("MPIO_Waitsome", "?", Other),                        // 288
        ("MPIO_Testsome", "?", Other),                        // 289
    ]
};
