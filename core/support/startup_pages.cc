// SPDX-License-Identifier: Apache-2.0

#include "core/support/tooling/startup_pages.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <vector>

namespace hopt {

size_t ReleaseLibraryCodePages(const char* library_substring) {
  FILE* maps = std::fopen("/proc/self/maps", "r");
  if (maps == nullptr) return 0;
  char line[4096];
  size_t released = 0;
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  std::vector<unsigned char> residency;
  while (std::fgets(line, sizeof(line), maps) != nullptr) {
    unsigned long start = 0, end = 0;
    char perms[8] = {};
    if (std::sscanf(line, "%lx-%lx %7s", &start, &end, perms) != 3) continue;
    // Text only: writable or relocated (r--p) pages hold private data.
    if (std::strcmp(perms, "r-xp") != 0) continue;
    if (std::strstr(line, library_substring) == nullptr) continue;
    size_t length = end - start;
    residency.assign((length + page - 1) / page, 0);
    if (mincore(reinterpret_cast<void*>(start), length, residency.data()) == 0)
      for (unsigned char r : residency) released += (r & 1) ? page : 0;
    madvise(reinterpret_cast<void*>(start), length, MADV_DONTNEED);
  }
  std::fclose(maps);
  return released;
}

}  // namespace hopt
