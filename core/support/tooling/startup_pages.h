// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_CORE_SUPPORT_TOOLING_STARTUP_PAGES_H_
#define HOPT_CORE_SUPPORT_TOOLING_STARTUP_PAGES_H_

#include <cstddef>

namespace hopt {

// libLLVM's static constructors fault in tens of megabytes of its code at
// load time, code hopt never runs again. This hands those clean code pages
// back to the kernel (they are read again from the page cache if ever
// needed). Only read-only executable mappings of shared libraries whose
// path contains `library_substring` are touched; returns the bytes that
// were resident before.
size_t ReleaseLibraryCodePages(const char* library_substring);

}  // namespace hopt

#endif  // HOPT_CORE_SUPPORT_TOOLING_STARTUP_PAGES_H_
