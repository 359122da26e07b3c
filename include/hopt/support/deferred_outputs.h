// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_SUPPORT_DEFERRED_OUTPUTS_H_
#define HOPT_SUPPORT_DEFERRED_OUTPUTS_H_

// Outputs a pass writes besides the module, such as marker-splitter's
// split directory, must appear only when the whole run succeeds: a later
// pass failing, -verify-equivalence failing or hopt's -o being
// unwritable must leave no split behind. A pass writes such a directory
// into a staging directory (MakeStagingDirectory: a fresh, unpredictably
// named sibling of the target, removed on a signal) and registers the
// final rename with DeferDirectoryCommit; the tool calls
// CommitDeferredOutputs once its own output is in place. Whatever is not
// committed is removed when the process exits.
//
// An existing target is replaced only when it is an empty directory or
// holds `marker` (the earlier output of the same kind, e.g. a split's
// manifest.json); anything else is refused, so that a mistyped
// output directory never replaces an unrelated directory.
//
// (A pass option of type output-path, include/hopt/pass_manager/pass_options.h,
// lets the tool refuse, before anything runs, an output that is also its
// input or its -o.)

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace hopt {

// The absolute, dot-free spelling of `path`, without a trailing slash.
std::string NormalizePath(const std::string& path);

// OK when `target` is missing, an empty directory or a directory holding
// `marker`; `what` names the option in the message.
absl::Status CheckReplaceableDirectory(const std::string& target, const std::string& marker,
                                       const std::string& what);

// Creates the parent of `target` if needed and a private (0700) directory
// next to `target` under a random name.
absl::StatusOr<std::string> MakeStagingDirectory(const std::string& target);

// Fails if this run already deferred a directory to the same target:
// two outputs must not mix in one directory.
absl::Status DeferDirectoryCommit(const std::string& staging, const std::string& target,
                                  const std::string& marker, const std::string& what);

// Renames every deferred directory into place (the new directory gets the
// replaced one's permissions, or 0777 & ~umask). Stops at the first failure
// and discards the rest.
absl::Status CommitDeferredOutputs();
void DiscardDeferredOutputs();

}  // namespace hopt

#endif  // HOPT_SUPPORT_DEFERRED_OUTPUTS_H_
