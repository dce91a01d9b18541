// CUPTI's range profiler (CUDA 13): one user range around a run of the fast build, user
// replay (we re-run it, with its inputs restored, once per pass the metrics need), then
// the counter data evaluated to the metric values. The sequence follows CUPTI's
// range_profiling sample: host object -> config image -> enable -> counter data image ->
// set config -> start/push/launch/pop/stop per pass -> decode -> evaluate.
//
// The CUDA context comes from the runtime (cudaGetDriverEntryPointByVersion), so
// warpscope does not link libcuda itself and still starts on machines with no driver.
#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_result.h>
#include <cupti_sass_metrics.h>
#include <cupti_target.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "kernels/hardware/cupti_profiler.h"

namespace ws::cuda {
namespace {

// A CUPTI failure: the call and CUPTI's name for the error.
struct CuptiFailure {
  CUptiResult code;
  std::string what;
};

// WS_CUPTI_FORCE_ERROR makes the first CUPTI call fail (tests of the refusal path).
CUptiResult forced_error() {
  const char* e = std::getenv("WS_CUPTI_FORCE_ERROR");
  if (!e || !*e) return CUPTI_SUCCESS;
  if (std::strcmp(e, "insufficient_privileges") == 0) return CUPTI_ERROR_INSUFFICIENT_PRIVILEGES;
  if (std::strcmp(e, "not_supported") == 0) return CUPTI_ERROR_NOT_SUPPORTED;
  return CUPTI_ERROR_UNKNOWN;
}

void check(CUptiResult r, const char* call) {
  if (r == CUPTI_SUCCESS) return;
  const char* name = nullptr;
  cuptiGetResultString(r, &name);
  throw CuptiFailure{r, std::string(call) + ": " + (name ? name : "CUPTI error " + std::to_string(int(r)))};
}

void check_cuda(cudaError_t e, const char* call) {
  if (e != cudaSuccess)
    throw CuptiFailure{CUPTI_ERROR_UNKNOWN, std::string(call) + ": " + cudaGetErrorName(e)};
}

HardwareUnavailable classify(CUptiResult r) {
  switch (r) {
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
      return HardwareUnavailable::NotPermitted;
    case CUPTI_ERROR_NOT_SUPPORTED:
    case CUPTI_ERROR_LEGACY_PROFILER_NOT_SUPPORTED:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_INVALID_METRIC_NAME:
      return HardwareUnavailable::Unsupported;
    case CUPTI_ERROR_NOT_INITIALIZED:
      return HardwareUnavailable::NoCupti;
    case CUPTI_ERROR_HARDWARE_BUSY:
      return HardwareUnavailable::Busy;
    default: return HardwareUnavailable::Failed;
  }
}

CUcontext current_context() {
  using GetCurrent = CUresult (*)(CUcontext*);
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult q{};
  check_cuda(cudaFree(nullptr), "cudaFree(0) (context)");
  check_cuda(cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &fn, 12000, cudaEnableDefault, &q),
             "cudaGetDriverEntryPointByVersion(cuCtxGetCurrent)");
  if (!fn || q != cudaDriverEntryPointSuccess)
    throw CuptiFailure{CUPTI_ERROR_UNKNOWN, "the driver has no cuCtxGetCurrent"};
  CUcontext ctx = nullptr;
  if (reinterpret_cast<GetCurrent>(fn)(&ctx) != CUDA_SUCCESS || !ctx)
    throw CuptiFailure{CUPTI_ERROR_UNKNOWN, "no current CUDA context"};
  return ctx;
}

// The chip name CUPTI knows device `dev` by ("GH100").
std::string chip_name(int dev) {
  CUpti_Device_GetChipName_Params cn{CUpti_Device_GetChipName_Params_STRUCT_SIZE};
  cn.deviceIndex = std::size_t(dev);
  check(cuptiDeviceGetChipName(&cn), "cuptiDeviceGetChipName");
  return cn.pChipName;
}

void profiler_deinitialize() {
  CUpti_Profiler_DeInitialize_Params pd{CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE};
  cuptiProfilerDeInitialize(&pd);
}

// Undoes what profile_sass_lines set up, in reverse order: the patching, then the config.
void sass_metrics_teardown(CUcontext ctx, int dev, bool enabled, bool configured) {
  if (enabled) {
    CUpti_SassMetricsDisable_Params di{CUpti_SassMetricsDisable_Params_STRUCT_SIZE};
    di.ctx = ctx;
    cuptiSassMetricsDisable(&di);
  }
  if (configured) {
    CUpti_SassMetricsUnsetConfig_Params un{CUpti_SassMetricsUnsetConfig_Params_STRUCT_SIZE};
    un.deviceIndex = std::uint32_t(dev);
    cuptiSassMetricsUnsetConfig(&un);
  }
}

struct HostObject {
  CUpti_Profiler_Host_Object* p = nullptr;
  HostObject(const std::string& chip, const std::vector<std::uint8_t>& avail) {
    CUpti_Profiler_Host_Initialize_Params ip{CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE};
    ip.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    ip.pChipName = chip.c_str();
    ip.pCounterAvailabilityImage = avail.data();
    check(cuptiProfilerHostInitialize(&ip), "cuptiProfilerHostInitialize");
    p = ip.pHostObject;
  }
  HostObject(const HostObject&) = delete;
  HostObject& operator=(const HostObject&) = delete;
  ~HostObject() {
    CUpti_Profiler_Host_Deinitialize_Params dp{CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE};
    dp.pHostObject = p;
    cuptiProfilerHostDeinitialize(&dp);
  }
  // false when the host object refuses the metrics (an unknown name).
  bool add(std::vector<const char*> names) {
    CUpti_Profiler_Host_ConfigAddMetrics_Params ap{CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
    ap.pHostObject = p;
    ap.ppMetricNames = names.data();
    ap.numMetrics = names.size();
    return cuptiProfilerHostConfigAddMetrics(&ap) == CUPTI_SUCCESS;
  }
  std::vector<std::uint8_t> config_image() {
    CUpti_Profiler_Host_GetConfigImageSize_Params sp{CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE};
    sp.pHostObject = p;
    check(cuptiProfilerHostGetConfigImageSize(&sp), "cuptiProfilerHostGetConfigImageSize");
    std::vector<std::uint8_t> img(sp.configImageSize);
    CUpti_Profiler_Host_GetConfigImage_Params gp{CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE};
    gp.pHostObject = p;
    gp.pConfigImage = img.data();
    gp.configImageSize = img.size();
    check(cuptiProfilerHostGetConfigImage(&gp), "cuptiProfilerHostGetConfigImage");
    return img;
  }
};

struct RangeProfiler {
  CUpti_RangeProfiler_Object* p = nullptr;
  explicit RangeProfiler(CUcontext ctx) {
    CUpti_RangeProfiler_Enable_Params ep{CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
    ep.ctx = ctx;
    check(cuptiRangeProfilerEnable(&ep), "cuptiRangeProfilerEnable");
    p = ep.pRangeProfilerObject;
  }
  RangeProfiler(const RangeProfiler&) = delete;
  RangeProfiler& operator=(const RangeProfiler&) = delete;
  ~RangeProfiler() {
    CUpti_RangeProfiler_Disable_Params dp{CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
    dp.pRangeProfilerObject = p;
    cuptiRangeProfilerDisable(&dp);
  }
};

// One profiled run: all its replay passes, decoded and evaluated.
std::map<std::string, double> one_run(CUcontext ctx, HostObject& host,
                                      const std::vector<std::uint8_t>& config,
                                      std::vector<const char*>& names,
                                      const std::function<void()>& prepare,
                                      const std::function<void()>& launch) {
  RangeProfiler rp(ctx);
  CUpti_RangeProfiler_GetCounterDataSize_Params sp{CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE};
  sp.pRangeProfilerObject = rp.p;
  sp.pMetricNames = names.data();
  sp.numMetrics = names.size();
  sp.maxNumOfRanges = 1;
  sp.maxNumRangeTreeNodes = 1;
  check(cuptiRangeProfilerGetCounterDataSize(&sp), "cuptiRangeProfilerGetCounterDataSize");
  std::vector<std::uint8_t> data(sp.counterDataSize);
  CUpti_RangeProfiler_CounterDataImage_Initialize_Params ip{
      CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE};
  ip.pRangeProfilerObject = rp.p;
  ip.counterDataSize = data.size();
  ip.pCounterData = data.data();
  check(cuptiRangeProfilerCounterDataImageInitialize(&ip),
        "cuptiRangeProfilerCounterDataImageInitialize");

  CUpti_RangeProfiler_SetConfig_Params cp{CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE};
  cp.pRangeProfilerObject = rp.p;
  cp.configSize = config.size();
  cp.pConfig = config.data();
  cp.counterDataImageSize = data.size();
  cp.pCounterDataImage = data.data();
  cp.range = CUPTI_UserRange;
  cp.replayMode = CUPTI_UserReplay;
  cp.maxRangesPerPass = 1;
  cp.numNestingLevels = 1;
  cp.minNestingLevel = 1;
  cp.passIndex = 0;
  cp.targetNestingLevel = 1;
  check(cuptiRangeProfilerSetConfig(&cp), "cuptiRangeProfilerSetConfig");

  for (int pass = 0;; ++pass) {
    if (pass > 64) throw CuptiFailure{CUPTI_ERROR_UNKNOWN, "more than 64 replay passes"};
    prepare();
    check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize (before the range)");
    CUpti_RangeProfiler_Start_Params st{CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
    st.pRangeProfilerObject = rp.p;
    check(cuptiRangeProfilerStart(&st), "cuptiRangeProfilerStart");
    CUpti_RangeProfiler_PushRange_Params pu{CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE};
    pu.pRangeProfilerObject = rp.p;
    pu.pRangeName = "warpscope";
    check(cuptiRangeProfilerPushRange(&pu), "cuptiRangeProfilerPushRange");
    launch();
    check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize (profiled range)");
    CUpti_RangeProfiler_PopRange_Params po{CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE};
    po.pRangeProfilerObject = rp.p;
    check(cuptiRangeProfilerPopRange(&po), "cuptiRangeProfilerPopRange");
    CUpti_RangeProfiler_Stop_Params sp2{CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
    sp2.pRangeProfilerObject = rp.p;
    check(cuptiRangeProfilerStop(&sp2), "cuptiRangeProfilerStop");
    if (sp2.isAllPassSubmitted) break;
  }
  CUpti_RangeProfiler_DecodeData_Params dp{CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE};
  dp.pRangeProfilerObject = rp.p;
  check(cuptiRangeProfilerDecodeData(&dp), "cuptiRangeProfilerDecodeData");

  CUpti_RangeProfiler_GetCounterDataInfo_Params gi{CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE};
  gi.pCounterDataImage = data.data();
  gi.counterDataImageSize = data.size();
  check(cuptiRangeProfilerGetCounterDataInfo(&gi), "cuptiRangeProfilerGetCounterDataInfo");
  if (gi.numTotalRanges < 1) throw CuptiFailure{CUPTI_ERROR_UNKNOWN, "CUPTI recorded no range"};

  std::vector<double> vals(names.size(), 0.0);
  CUpti_Profiler_Host_EvaluateToGpuValues_Params ev{CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE};
  ev.pHostObject = host.p;
  ev.pCounterDataImage = data.data();
  ev.counterDataImageSize = data.size();
  ev.rangeIndex = 0;
  ev.ppMetricNames = names.data();
  ev.numMetrics = names.size();
  ev.pMetricValues = vals.data();
  check(cuptiProfilerHostEvaluateToGpuValues(&ev), "cuptiProfilerHostEvaluateToGpuValues");
  std::map<std::string, double> out;
  for (std::size_t i = 0; i < names.size(); ++i) out[names[i]] = vals[i];
  return out;
}

}  // namespace

HardwareCounters profile_counters(const std::string& device_name, int runs,
                                  const std::function<void()>& prepare,
                                  const std::function<void()>& launch) {
  HardwareCounters h;
  h.device = device_name;
  try {
    if (CUptiResult f = forced_error(); f != CUPTI_SUCCESS)
      check(f, "cuptiProfilerInitialize (forced by WS_CUPTI_FORCE_ERROR)");
    CUpti_Profiler_Initialize_Params pi{CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
    check(cuptiProfilerInitialize(&pi), "cuptiProfilerInitialize");
    // Undone on every way out, a callback's exception included.
    struct Deinit {
      ~Deinit() { profiler_deinitialize(); }
    } deinit;
    const CUcontext ctx = current_context();
    int dev = 0;
    check_cuda(cudaGetDevice(&dev), "cudaGetDevice");
    const std::string chip = chip_name(dev);

    CUpti_Profiler_GetCounterAvailability_Params ca{CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE};
    ca.ctx = ctx;
    check(cuptiProfilerGetCounterAvailability(&ca), "cuptiProfilerGetCounterAvailability (size)");
    std::vector<std::uint8_t> avail(ca.counterAvailabilityImageSize);
    ca.pCounterAvailabilityImage = avail.data();
    check(cuptiProfilerGetCounterAvailability(&ca), "cuptiProfilerGetCounterAvailability");

    // Every metric this chip knows; an unknown one is left out and named, not fatal.
    std::vector<const char*> names;
    std::string dropped;
    for (const std::string& m : hardware_metrics()) {
      HostObject probe(chip, avail);
      if (probe.add({m.c_str()}))
        names.push_back(m.c_str());
      else
        dropped += (dropped.empty() ? "" : ", ") + m;
    }
    if (names.empty()) throw CuptiFailure{CUPTI_ERROR_INVALID_METRIC_NAME, "no metric is known to " + chip};
    HostObject host(chip, avail);
    if (!host.add(names)) throw CuptiFailure{CUPTI_ERROR_INVALID_METRIC_NAME, "cuptiProfilerHostConfigAddMetrics"};
    const std::vector<std::uint8_t> config = host.config_image();
    for (int r = 0; r < std::max(runs, 1); ++r)
      h.passes.push_back(one_run(ctx, host, config, names, prepare, launch));
    h.unavailable = HardwareUnavailable::None;
    if (!dropped.empty()) h.detail = "not available on " + chip + ": " + dropped;
  } catch (const CuptiFailure& f) {
    h.passes.clear();
    h.unavailable = classify(f.code);
    h.detail = f.what;
  }
  return h;
}

void profile_sass_lines(HardwareCounters& h, const std::function<void()>& launch) {
  int dev = 0;
  bool configured = false, enabled = false;
  CUcontext ctx = nullptr;
  try {
    CUpti_Profiler_Initialize_Params pi{CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
    check(cuptiProfilerInitialize(&pi), "cuptiProfilerInitialize");
    ctx = current_context();
    check_cuda(cudaGetDevice(&dev), "cudaGetDevice");
    const std::string chip = chip_name(dev);

    CUpti_SassMetrics_GetNumOfMetrics_Params np{CUpti_SassMetrics_GetNumOfMetrics_Params_STRUCT_SIZE};
    np.pChipName = chip.c_str();
    check(cuptiSassMetricsGetNumOfMetrics(&np), "cuptiSassMetricsGetNumOfMetrics");
    std::vector<CUpti_SassMetrics_MetricDetails> all(np.numOfMetrics);
    CUpti_SassMetrics_GetMetrics_Params gm{CUpti_SassMetrics_GetMetrics_Params_STRUCT_SIZE};
    gm.pChipName = chip.c_str();
    gm.numOfMetrics = all.size();
    gm.pMetricsList = all.data();
    check(cuptiSassMetricsGetMetrics(&gm), "cuptiSassMetricsGetMetrics");
    // The per-instruction counterparts of the model's counters.
    std::vector<CUpti_SassMetrics_Config> cfg;
    std::map<std::uint64_t, std::string> names;
    for (const auto& m : all) {
      const std::string n = m.pMetricName ? m.pMetricName : "";
      h.sass_metric_names.push_back(n);
      const bool want = n == "smsp__sass_inst_executed" ||
                        (n.find("wavefronts") != std::string::npos && n.find("shared") != std::string::npos) ||
                        (n.find("sectors") != std::string::npos && n.find("global") != std::string::npos) ||
                        n.find("bank_conflicts") != std::string::npos;
      if (!want) continue;
      cfg.push_back(CUpti_SassMetrics_Config{m.metricId, CUPTI_SASS_METRICS_OUTPUT_GRANULARITY_GPU});
      names[m.metricId] = n;
    }
    if (cfg.empty()) throw CuptiFailure{CUPTI_ERROR_NOT_SUPPORTED, "no SASS metric for shared wavefronts or global sectors on " + chip};
    CUpti_SassMetricsSetConfig_Params sc{CUpti_SassMetricsSetConfig_Params_STRUCT_SIZE};
    sc.numOfMetricConfig = cfg.size();
    sc.pConfigs = cfg.data();
    sc.deviceIndex = std::uint32_t(dev);
    check(cuptiSassMetricsSetConfig(&sc), "cuptiSassMetricsSetConfig");
    configured = true;
    CUpti_SassMetricsEnable_Params en{CUpti_SassMetricsEnable_Params_STRUCT_SIZE};
    en.ctx = ctx;
    // Patch only the functions that run inside the range. Patching every function loaded
    // in the context (0) also patches what other launches of the run loaded, and one of
    // those can be refused: cuptiSassMetricsEnable then fails with INVALID_PARAMETER
    // (matmul, docs/HARDWARE.md 7). WS_SASS_PATCH_ALL=1 restores it, to show the cause.
    const char* patch_all = std::getenv("WS_SASS_PATCH_ALL");
    en.enableLazyPatching = patch_all && *patch_all == '1' ? 0 : 1;
    check(cuptiSassMetricsEnable(&en), "cuptiSassMetricsEnable");
    enabled = true;
    launch();
    check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize (SASS metrics)");
    CUpti_SassMetricsGetDataProperties_Params dp{CUpti_SassMetricsGetDataProperties_Params_STRUCT_SIZE};
    dp.ctx = ctx;
    check(cuptiSassMetricsGetDataProperties(&dp), "cuptiSassMetricsGetDataProperties");
    const std::size_t nrec = dp.numOfPatchedInstructionRecords, ninst = dp.numOfInstances;
    if (nrec > 0 && ninst > 0) {
      std::vector<CUpti_SassMetrics_Data> data(nrec);
      std::vector<CUpti_SassMetrics_InstanceValue> vals(nrec * ninst * cfg.size());
      for (std::size_t i = 0; i < nrec; ++i) {
        data[i].structSize = sizeof(CUpti_SassMetrics_Data);
        data[i].pInstanceValues = vals.data() + i * ninst * cfg.size();
      }
      CUpti_SassMetricsFlushData_Params fd{CUpti_SassMetricsFlushData_Params_STRUCT_SIZE};
      fd.ctx = ctx;
      fd.numOfPatchedInstructionRecords = nrec;
      fd.numOfInstances = ninst;
      fd.pMetricsData = data.data();
      check(cuptiSassMetricsFlushData(&fd), "cuptiSassMetricsFlushData");
      for (std::size_t i = 0; i < nrec; ++i) {
        PcCounters pc;
        pc.function = data[i].functionName ? data[i].functionName : "";
        pc.pc = data[i].pcOffset;
        for (std::size_t k = 0; k < ninst * cfg.size(); ++k) {
          const auto& v = data[i].pInstanceValues[k];
          auto it = names.find(v.metricId);
          if (it != names.end()) pc.values[it->second] += double(v.value);
        }
        h.per_pc.push_back(std::move(pc));
      }
    } else {
      h.per_pc_error = "CUPTI's SASS metrics recorded no instruction";
    }
  } catch (const CuptiFailure& f) {
    h.per_pc.clear();
    h.per_pc_error = f.what;
  } catch (...) {  // the launch's own failure: undo the setup, then let it through
    sass_metrics_teardown(ctx, dev, enabled, configured);
    throw;
  }
  sass_metrics_teardown(ctx, dev, enabled, configured);
  profiler_deinitialize();
}

}  // namespace ws::cuda
