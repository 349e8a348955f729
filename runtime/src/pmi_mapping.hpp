// PMI_process_mapping, the launchers' description of which node every rank
// runs on: "(vector,(S,N,P),...)", each block putting P consecutive ranks on
// each of the N nodes from S on; the list repeats until every rank has a
// node (hydra writes "(vector,(0,1,1))" for any number of ranks on one host).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tern::runtime {

// Fills `node_of_rank` (size `size`). False, with `why`, on anything that is
// not such a vector or assigns no rank.
[[nodiscard]] bool parse_pmi_process_mapping(std::string_view text, unsigned size,
                                             std::vector<unsigned>& node_of_rank, std::string& why);

}  // namespace tern::runtime
