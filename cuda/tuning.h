/*
 * Every tuning constant of the CUDA engine, each with the measurement that chose it (H100
 * 80GB HBM3 VM, 16 vCPUs, CUDA 13; kernel_bench and ring_bench, alternating builds on one
 * machine).  doc/design.md tells the story behind the larger ones.
 */
#pragma once

#include <cstddef>
#include <cstdint>

namespace gpudot
{

/* ---- kernels ---- */

/* Block size of every kernel. */
constexpr int kThreads = 256;
/* Blocks an SM for kThreads = 256: 8 x 8 warps = 64 warps, a full H100/A100 SM. */
constexpr int kBlocksPerSM = 8;
/* Tile order's stretch a block, in rounds of loads: 16 KiB tiles for double 2^27-2^30 read
 * at 1.003-1.013x cuBLAS against 0.992-0.995x in grid-stride order; single needs 256 KiB. */
constexpr int kTileItersF32 = 16;
constexpr int kTileItersF64 = 1;
/* Runs of at most this many blocks finish through slots merged by one warp: 5-22% shorter
 * at 2^12-2^16 (double 2^16 gdot 6.24 -> 5.73 us); 2^16 is fastest with 32 blocks. */
constexpr int kSmallSplits = 32;
/* States of up to 2 live fields use slots in larger runs: 3-16% faster at 2^12-2^20 than
 * partials; cosines (3-4 fields) were 2-12% slower at 2^12-2^14, so they keep partials. */
constexpr int kSlotWords = 2;
/* Slots of the small-run kernels: 6 words; with 8 the run-time-kind norms spilled 56-104
 * bytes a thread (nvcc -Xptxas -v, sm_90). */
constexpr int kSlotWordsSmall = 6;

/* ---- launch planning ---- */

/* Column runs from this long split over blocks; shorter ones take a warp each (16 KiB of
 * singles: one warp's loads in flight cover it in a few round trips). */
constexpr int64_t kSplitMinRun = 4096;
/* Cosines' warp columns finish a round of outputs a lane (columns_warp_batched) while each
 * warp an SM holds keeps this many rounds (not tuned further).  Against a round at a time,
 * H100 ncu: 64 x 2^21 single 513 -> 429 us, double 964 -> 803; 768 x 10^6 single 1.74 ->
 * 1.54 ms. */
constexpr int64_t kWarpRounds = 2;
/* Cosines of a broadcast vector against warp columns hold it in shared memory up to this
 * many elements (columns_query): 32 KiB of doubles, 7 blocks an SM.  (H100 ncu, one run:
 * 768 x 10^6 singles 1.04 ms against gdot's 1.18 on the same data; columns_warp took 1.54
 * against 1.02 in another.) */
constexpr int64_t kQueryMax = 4096;
/* Cosines split runs of kSplitMinRun and more whatever the outputs (a block a run at
 * least): their warp columns hold 24 warps an SM (80 registers), so 4096 x 4096 took 1.29
 * waves; split, single 60.1 -> 48.3 us, double 108.7 -> 90.6 (H100 kernel_bench, one run;
 * read ceiling 55.8 and 90.5).  64 x 2^21 (warp columns) stays at 91-95%: lanes 4 or 16
 * and rounds 2 or 4 a warp were 1.5% faster at best, as gdot is there (90-93%). */
constexpr bool kCosSplitAll = true;
/* Staged warp columns (columns_staged, sm_80 and later): a tile of both operands' runs
 * in kStagedBytes, kStages tiles a block (kStages - 1 in flight while one is summed),
 * kStagedBlocks blocks an SM (96 KiB of shared memory each).  The first sizes tried, not
 * tuned further: gdot of 64 x 2^21 singles 324 -> 256 us, doubles 591 -> 496 (H200
 * kernel_bench; read ceiling 236 and 468).  Tiles of 16 or 24 KiB (4 or 3 blocks an SM) were
 * slower: dots 263 and 517 us against 258 and 503, cosines 321 against 282 (H200, two
 * rounds). */
constexpr int64_t kStagedBytes = 32 * 1024;
constexpr int kStages = 3;
constexpr int kStagedBlocks = 2;
/* Calls of fewer operand bytes keep columns_warp: a small call waits for one round trip
 * either way, and a kernel with 96 KiB of shared memory can make an SM change its split of
 * L1 and shared memory first. */
constexpr int64_t kStagedFromBytes = (int64_t)1 << 20;
/* Each block of a split run takes at least this many elements (8 a thread). */
constexpr int64_t kMinPerBlock = kThreads * 8;
/* Dots plan split runs for 2 blocks an SM: single 2^24 94.8 -> 96.7% of the read ceiling
 * against 4; norms and cosines lost up to 1.4% with 2 and keep kBlocksPerSM. */
constexpr int kSplitBlocksPerSMDot = 2;
/* A single output of more than a warp's round of loads (2 KiB an operand) and at most two
 * of a block's (32 KiB) takes one block and no merge: gdot of 1024 doubles 11.25 -> 9.29
 * us a call. */
constexpr int64_t kWarpRoundVecs = 32 * 4;
constexpr int64_t kOneBlockVecs = 2 * kThreads * 4;
/* Tile order from runs of 1 GiB: below it the grid-stride order is as fast or faster
 * (single 2^24 1.057 against 1.044x cuBLAS with 256 KiB tiles). */
constexpr size_t kTileFromBytes = (size_t)1 << 30;

/* ---- results ---- */

/* Results up to this size land in mapped pinned memory, each value its own flag: ~10 us a
 * round trip against ~20 us for launch + copy + sync. */
constexpr size_t kMappedBytes = 64 * 1024;
/* Polls of the mapped results before a stream sync (~seconds: beyond any such kernel). */
constexpr long kSpinLimit = 10000000;

/* ---- the staging ring for host data ---- */

/* Pinned slots: 4 instead of 3 gave no consistent gain (single 2^22 1.75x the pinned floor,
 * 2^26 1.14x against 1.07x). */
constexpr int kSlots = 3;
/* Slot size: half the operands, within [kSlotMin, kSlotMid] up to kSlotMidUpTo bytes and
 * kSlotMax beyond: 8 MiB slots 1.47x at single 2^22 against 1.63x (4 MiB), 1.68x (16). */
constexpr size_t kSlotMin = (size_t)2 << 20;
constexpr size_t kSlotMid = (size_t)8 << 20;
constexpr size_t kSlotMidUpTo = (size_t)128 << 20;
constexpr size_t kSlotMax = (size_t)16 << 20;
/* Copies of up to 4 MiB (1.06x the pinned floor at double 2^26; 512 KiB pieces 1.31x), the
 * first of a call 256 KiB and doubling, so that the copy engine starts early. */
constexpr size_t kPiece = (size_t)4 << 20;
constexpr size_t kPieceFirst = (size_t)256 << 10;
/* Packing threads take 64 KiB at a time, so a descheduled vCPU holds up one unit. */
constexpr size_t kPackUnit = (size_t)64 << 10;
/* Without cldemote, calls of up to 64 MiB pack with streaming stores (single 2^22 1.78x ->
 * 1.40x the floor), larger ones with memcpy (single 2^26 1.11x against 1.24x). */
constexpr size_t kPackNtUpTo = (size_t)64 << 20;
/* With cldemote, 4 MiB slots whose lines are demoted to the LLC: single 2^22 1.43x ->
 * 1.24x, 2^24 1.26x -> 1.13x (6-8 MiB slots 1.27-1.29x). */
constexpr size_t kSlotDemote = (size_t)4 << 20;
/* Each packing thread takes at least 128 KiB: all 16 threads on a 2 MiB chunk (1 MiB a
 * thread packed ~7 GB/s in all). */
constexpr size_t kPackPerThread = (size_t)128 << 10;
/* Outputs up to this size stay on the device until the end of a chunked call. */
constexpr size_t kOutWhole = (size_t)256 << 20;
/* Calls on host data reducing runs (beyond kDirectBytes) are reduced position-fixed: runs
 * longer than the largest power of two of elements whose bytes of both operands fit this
 * are cut into chunks of it, each its own state.  A slot holds whole chunks (2 MiB fits the
 * smallest, kSlotMin): single 2^26 through one H100's ring 1.04x the pinned floor, as before. */
constexpr size_t kHostChunkBytes = (size_t)2 << 20;
/* Such calls spread over one GPU a kSpreadPerGpuBytes of operands (one ring each), up to
 * every visible GPU.  gdot single on 4 x H200 hosts, 2 GPUs' speed over one in three runs:
 * 2^21 (16 MiB) 1.29, 0.69, 0.24x; 2^22 1.60, 0.83, 0.93x; 2^23 1.68, 1.20, 1.87x. */
constexpr size_t kSpreadPerGpuBytes = (size_t)32 << 20;
/* Calls of up to 256 KiB of operands skip the ring (one thread packs, one kernel reads over
 * PCIe): 0.59-0.91x the ring's time; at 512 KiB 1.34-1.54x. */
constexpr size_t kDirectBytes = (size_t)256 << 10;

} // namespace gpudot
