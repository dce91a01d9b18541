// Solution of puzzles/07-shuffle-reduction.md: five shuffles per warp, one value per
// warp through shared memory, one barrier, and warp 0 sums the block's warp sums.
WS_DEVICE int warp_sum(Thread& t, int v) {
  for (int offset = 16; offset > 0; offset /= 2) {
    v += t.shfl_down_sync(WS_FULL_MASK, v, offset);
  }
  return v;
}

struct Reduce {
  Global<const int> in;
  Global<int> out;
  unsigned n;
  WS_DEVICE void operator()(Thread& t) const {
    auto warp_sums = t.shared<int>(32, "warp_sums");
    unsigned i = t.blockIdx.x * (t.blockDim.x * 2) + t.threadIdx.x;
    unsigned grid_size = t.blockDim.x * 2 * t.gridDim.x;
    int sum = 0;
    while (i < n) {
      sum += in(i);
      sum += in(i + t.blockDim.x);
      i += grid_size;
    }
    sum = warp_sum(t, sum);
    if (t.lane() == 0) {
      warp_sums(t.warp()) = sum;
    }
    t.syncthreads();
    if (t.warp() == 0) {
      sum = 0;
      if (t.lane() < t.blockDim.x / 32) {
        sum = warp_sums(t.lane());
      }
      sum = warp_sum(t, sum);
      if (t.lane() == 0) {
        out(t.blockIdx.x) = sum;
      }
    }
  }
};
