// Completion callbacks: a non-blocking call can be told what to run when it
// ends, instead of handing back a Request to test or wait on.
//
// The rule, the same for every call that takes a Callback:
//  - Ok: the operation finished inside the call (a short send went out
//    whole, a receive found its message already arrived whole). The
//    callback is NOT run; a receive's `info`, if given, is filled.
//  - InProgress: the callback runs exactly once, later, from the worker's
//    progress (Worker::progress, a wait, test, or the progress thread,
//    whichever progresses first), or on a notifier's thread (notifier.hpp).
//    Never from inside the call that started the operation.
//  - An error: nothing was started, the callback is NOT run.
// Worker::set_callback hands a Request the caller already holds to the same
// machinery; there the callback always runs, even for a request already done.
//
// A callback run from progress runs with the worker's lock held (when the
// worker has one): it may post new operations and cancel, but should neither
// wait nor block, or every other user of the worker waits with it. Route
// callbacks that may block to a Notifier.
#pragma once

#include "tern/engine/request.hpp"
#include "tern/runtime/status.hpp"

namespace tern::engine {

class Notifier;

// `status`: Ok or the error the operation ended with (Truncated, Canceled,
// a peer's failure...). `info`: for receives the matched message's tag and
// full length (the engine carries the sender in the tag, as the front ends
// pack it: a short message names no sender on the wire); for sends the tag
// and length sent; zero for RMA.
using CompletionFunction = void (*)(void* user_data, Status status, const TagRecvInfo& info);

struct Callback {
  CompletionFunction function = nullptr;
  void* user_data = nullptr;
  // Where it runs: queued to this notifier when set, else to the worker's
  // (Worker::set_notifier) if it has one, else run in progress. The notifier
  // must outlive the operation.
  Notifier* notifier = nullptr;
};

}  // namespace tern::engine
