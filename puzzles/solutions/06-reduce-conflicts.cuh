// Solution of puzzles/06-reduce-conflicts.md: sequential addressing. In every round the
// lanes of a warp read 32 consecutive words (32 banks), and the working threads are the
// first s ones.
struct Reduce {
  Global<const int> in;
  Global<int> out;
  WS_DEVICE void operator()(Thread& t) const {
    auto sdata = t.shared<int>(t.blockDim.x, "sdata");
    unsigned tid = t.threadIdx.x;
    unsigned i = t.blockIdx.x * t.blockDim.x + t.threadIdx.x;
    sdata(tid) = in(i);
    t.syncthreads();
    for (unsigned s = t.blockDim.x / 2; s > 0; s >>= 1) {
      if (t.branch(tid < s)) {
        sdata(tid) += sdata(tid + s);
      }
      t.syncthreads();
    }
    if (tid == 0) {
      out(t.blockIdx.x) = sdata(0);
    }
  }
};
