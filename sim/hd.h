#pragma once
// The qualifier of functions shared by host and device code. sim/ stays plain C++ (no
// CUDA header): under nvcc the macro marks a function for both sides, elsewhere it is
// empty. kernels/dialect/simt.h includes this rather than defining its own.
#ifndef WS_HD
#if defined(__CUDACC__)
#define WS_HD __host__ __device__
#else
#define WS_HD
#endif
#endif
