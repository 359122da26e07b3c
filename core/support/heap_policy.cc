// SPDX-License-Identifier: Apache-2.0

#include "core/support/tooling/heap_policy.h"

#include <climits>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace hopt {

void KeepFreedMemoryForReuse() {
#if defined(__GLIBC__)
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_TRIM_THRESHOLD, INT_MAX);
  mallopt(M_MXFAST, 0);
#endif
}

}  // namespace hopt
