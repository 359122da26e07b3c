// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_CORE_SUPPORT_TOOLING_HEAP_POLICY_H_
#define HOPT_CORE_SUPPORT_TOOLING_HEAP_POLICY_H_

namespace hopt {

// Makes glibc's malloc keep freed memory for reuse instead of handing it
// back to the kernel: every allocation comes from the heap (no per-block
// mappings) and the heap is not trimmed below 2 GiB of free space.
//
// Why: a pass over an 8-million-instruction module allocates 64 MB post
// orders and scratch vectors. glibc maps blocks above its mmap threshold
// (which it never raises past 32 MB) afresh and unmaps them on free, so
// every such vector is new pages, faulted in and zeroed again on each
// call; at 1M instructions the same vectors are 8 MB and glibc reuses
// them. The tools are short-lived batch programs whose peak, not their
// footprint after a phase, is what users see. It shortens the neuron
// pipeline at 8.1M instructions and leaves it unchanged at 1M; the current
// figures: docs/benchmarks.md, "The neuron pipeline at 1 and 8 million instructions".
//
// Small blocks are not kept in glibc's "fast bins" either. Those defer
// merging freed blocks until the next large request or large free, which
// then sweeps every block freed since: a pass that removes half a million
// instructions (each with attribute storage) paid a fifth of its time at
// 8M instructions in one such sweep, as a scatter of cache misses.
// Without fast bins the merging happens at each free, while the block is
// still in cache: boundary-marker-removal got faster at 1M and 8M
// instructions, the neuron pipeline did not change (current figures:
// docs/benchmarks.md, "Marker passes: linear time").
//
// Call at the start of main; a no-op where malloc is not glibc's
// (sanitizer runtimes bring their own).
void KeepFreedMemoryForReuse();

}  // namespace hopt

#endif  // HOPT_CORE_SUPPORT_TOOLING_HEAP_POLICY_H_
