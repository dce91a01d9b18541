// Solution of puzzles/05-reduce-divergence.md: interleaved addressing with a strided
// index. Thread j works at 2*s*j, so the working threads are the first ones and warps
// split only when fewer than 32 threads work (the last 5 rounds).
struct Reduce {
  Global<const int> in;
  Global<int> out;
  WS_DEVICE void operator()(Thread& t) const {
    auto sdata = t.shared<int>(t.blockDim.x, "sdata");
    unsigned tid = t.threadIdx.x;
    unsigned i = t.blockIdx.x * t.blockDim.x + t.threadIdx.x;
    sdata(tid) = in(i);
    t.syncthreads();
    for (unsigned s = 1; s < t.blockDim.x; s *= 2) {
      unsigned index = 2 * s * tid;
      if (t.branch(index < t.blockDim.x)) {
        sdata(index) += sdata(index + s);
      }
      t.syncthreads();
    }
    if (tid == 0) {
      out(t.blockIdx.x) = sdata(0);
    }
  }
};
