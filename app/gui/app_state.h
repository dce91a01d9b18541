#pragma once
// The app's state on the UI thread: what is selected, the installed results and what the
// views derive from them, the stepper, the charts' data, notices and exports. Runs go to
// the worker; poll() installs what came back. Nothing here draws.
#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <set>
#include <memory>
#include <string>
#include <vector>

#include "app/gui/editor_panel.h"
#include "app/gui/gui.h"
#include "app/gui/lesson_panel.h"
#include "app/model/chart_model.h"
#include "app/model/results.h"
#include "app/model/sass_view.h"
#include "app/model/worker.h"
#include "kernels/backends/backend.h"
#include "sim/model.h"
#include "viz/chart.h"
#include "viz/source_view.h"
#include "viz/stepper.h"
#include "viz/views.h"

namespace ws::gui {

struct Notice {
  std::string text;
  bool error = false;
};

// Which panels the window shows: one switch per row of the view table (viz/views.h), so a
// new view needs no field here (a row whose panel column is `none` is always there:
// panel_switch gives no switch for it), and the two panels that are not views.
struct Panels {
  bool controls = true, source = true;
  std::array<bool, std::size(viz::kViews)> views;
  Panels() { views.fill(true); }
  bool& operator[](View v) { return views[std::size_t(v)]; }
  bool operator[](View v) const { return views[std::size_t(v)]; }
};

// The app's state joins its models (selection, results and stepper, charts: members, not
// bases) to the worker and the window: a change of selection runs on the worker, poll()
// installs what came back. It is the lessons' host (LessonHost, an interface).
class AppState : public LessonHost {
 public:
  AppState(const GuiOptions& opt, Worker& worker);

  // --- the models (app/model/): read by the panels, written by the methods below ---
  ResultsModel results;  // main, cmp, stepper, compare mode and variant, last latency
  ChartModel charts;     // history, bars, sweep, peers

  // --- selection (each change re-runs on the worker) ---
  void select(const std::string& family, const std::string& variant);
  // @post the parameter is set and a run is requested, or refusal() says why not.
  void set_param(const std::string& name, long long value);
  void set_params(const Params& p);
  void set_block(std::uint32_t block);
  void set_warp(std::uint16_t warp);
  void set_launch(std::size_t launch);
  const Selection& selection() const { return selection_.sel; }
  const VariantInfo* variant_info() const;
  // Why the current parameters cannot run ("" when they can). The last good result stays
  // on screen, marked as not matching the controls.
  const std::string& refusal() const { return selection_.refusal; }
  Params completed_params() const { return selection_.completed; }
  // The completed parameters with the timing sizes over them (== completed_params() when
  // there are none, or they do not validate).
  Params timed_params() const;
  // The selected variant's run at timed_params() (its bar), when the bars are there and
  // differ from the counting run; else nullptr: the main run's own time is the time.
  // nullptr while the student's kernel is on screen (the bars time the catalogue's).
  const RunResult* timed_run() const;
  // "counts at n=1024 · times at n=8192, recorded on ..." when they differ; else "".
  std::string sizes_line() const override;
  DeviceLimits limits() const;

  // --- running ---
  void request_run();
  void request_bars();
  void request_sweep();
  void request_peers();
  void poll();  // installs finished results; call once per frame
  bool main_pending() const { return main_pending_gen_ != 0; }
  bool bars_pending() const { return bars_pending_gen_ != 0; }
  bool any_pending() const;
  Worker& worker() { return worker_; }
  const Worker& worker() const { return worker_; }

  // --- views (results: main, cmp, stepper, compare_mode, compare_variant) ---
  // Turns compare mode on or off. With no variant named, B is the family's padding knob
  // flipped when the variant has one (the comparison students ask for first), else the
  // variant before this one in the family (its baseline).
  void set_compare(bool on, const std::string& variant = "", const Params& overrides = {});
  std::string compare_label() const;  // "tiled pad=1"

  // --- charts (charts: history, bars, sweep, peers; built with this state's context) ---
  std::vector<long long> sweep_values(const std::string& param) const;
  ChartContext chart_context() const;
  viz::ChartSpec history_chart() const { return charts.history_chart(chart_context()); }
  viz::ChartSpec bars_chart() const { return charts.bars_chart(chart_context()); }
  viz::ChartSpec sweep_chart() const { return charts.sweep_chart(chart_context()); }
  double peak() const;          // theoretical peak in the main run's unit (0: unknown)
  bool tensor_run() const;      // the main run's FLOPs are the tensor cores' (mma.sync)
  std::map<std::string, std::string> export_meta() const;

  // --- the hardware's side ---
  bool collect_hardware = false;  // main runs also read CUPTI's counters (the kernel is replayed)
  bool sass_unfold_all = false;   // the source view shows every line's SASS
  bool sass_all_instructions = false;  // ... every instruction, not only memory and barriers

  // --- window state ---
  bool presenter_on = false;
  float font_size = 17, presenter_font_size = 26;
  bool font_dirty = true;       // the session rebuilds the font atlas between frames
  bool fullscreen_request = false;
  Panels panels;
  View single_view = View::Window;  // screenshots: draw only this view
  std::string export_dir = ".";
  std::array<char, 512> export_dir_edit{};  // the export folder's text field
  std::string last_export;          // what the last export wrote, or why it failed
  bool last_export_failed = false;
  double last_export_at = -1;       // ImGui time of the last export: the toast shows 4 s
  bool keys_hidden = false;         // presenter: the keys line folded away (k)
  std::size_t param_cursor = 0;     // presenter: the parameter [ and ] step
  bool window_png_request = false;  // the session writes the next frame to a PNG
  std::vector<Notice> notices;
  void add_notice(const std::string& text, bool error);
  bool emulated() const;
  // Runs `task` on the worker thread with the worker's own backend, before any waiting job
  // but the main run (the editor's check of a student's kernel on a GPU).
  void run_editor_task(std::function<void(Backend&)> task);
  std::string backend_line() const;  // "emulator" or the GPU's name, for the title bar
  std::unique_ptr<LessonPanel> lesson;
  bool quit_request = false;
  // --- the start page: where the window opens when no kernel, lesson or puzzle was named ---
  bool start_page = false;
  // Each leaves the start page: a lesson in the player (its panel on), a puzzle in the
  // editor, or the kernels as they are. A lesson or puzzle that cannot be opened stays on
  // the start page with a notice saying why.
  // @post start_page == false iff the lesson or puzzle opened (always for explore).
  bool open_lesson(const std::string& path);
  bool open_puzzle(const std::string& path);
  void explore() { start_page = false; }
  // --- student kernels: the editor panel (gui --puzzle) ---
  std::unique_ptr<EditorPanel> editor;
  // Shows a student's run in every view: the job's family and variant selected, the
  // student's file as the source. It stays until the student selects something else.
  void show_user_run(std::shared_ptr<const RunResult> run, const std::string& family,
                     const std::string& variant, const std::string& source_file,
                     const std::string& struct_name);
  bool user_shown() const { return user_pinned_; }
  double frame_ms_median = 0;  // over the last frames (0 until there are enough)

  // --- LessonHost ---
  void open_lab(const std::string& family, const std::string& variant, const Params& params,
                const Params& timing) override;
  std::shared_ptr<const RunResult> latest_result() const override { return results.main.run; }
  std::uint64_t result_generation() const override { return results.main.gen; }
  bool run_pending() const override { return main_pending(); }
  DeviceInfo device() const override { return worker_.device(); }
  bool presenter() const override { return presenter_on; }
  void notice(const std::string& text) override { add_notice(text, false); }
  std::uint64_t run_on_worker(std::function<void(Backend&)> task) override;
  bool task_finished(std::uint64_t id) const override { return id != 0 && id <= lesson_done_gen_; }
  bool seek_to(const std::string& at) override;
  bool stepper_at_start() const override { return results.stepper.pos == 0; }

 private:
  void install(JobResult& r);
  void derive(Loaded& l, bool keep_pos);
  Job make_job(JobKind k, const std::string& variant, const Params& p) const;
  void default_sweep_params();

  GuiOptions opt_;
  Worker& worker_;
  SelectionModel selection_;
  std::uint64_t next_gen_ = 1;
  std::uint64_t history_gen_ = 0;  // the change whose history point is in
  std::uint64_t main_pending_gen_ = 0, cmp_pending_gen_ = 0, bars_pending_gen_ = 0,
                sweep_pending_gen_ = 0, peers_pending_gen_ = 0, lesson_pending_gen_ = 0,
                lesson_done_gen_ = 0;
  std::string peers_for_;   // the family/size the peers were measured for
  void request_peers_at(const Params& p);
  void note_history();
  Params peers_at_;         // the parameters the peers on screen were sized from
  bool worker_ready_seen_ = false;
  bool user_pinned_ = false;
};

// Roots searched for a variant's family header: app/paths.h data_roots() (next to the
// binary first, then the source tree it was built from, then the working directory).
std::vector<std::string> source_roots();

}  // namespace ws::gui
