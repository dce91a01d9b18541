// The prose of a lesson (the Markdown between its blocks) parsed by md4c into the render
// tree (Block, lesson_model.h); quotes and lists nested past kMaxBlockDepth are flattened
// and their line reported.
#include <md4c.h>

#include <cstring>
#include <string>
#include <vector>

#include "app/lesson/lesson_internal.h"
#include "app/lesson/lesson_model.h"

namespace ws::lesson {

using namespace detail;

namespace {



class TreeBuilder {
 public:
  explicit TreeBuilder(std::vector<Block>& out, int line) : out_(out), line_(line) {}

  static int enter_block(MD_BLOCKTYPE t, void* d, void* u) {
    return static_cast<TreeBuilder*>(u)->enter(t, d);
  }
  static int leave_block(MD_BLOCKTYPE t, void* d, void* u) {
    return static_cast<TreeBuilder*>(u)->leave(t, d);
  }
  static int enter_span(MD_SPANTYPE t, void* d, void* u) {
    return static_cast<TreeBuilder*>(u)->span(t, d, true);
  }
  static int leave_span(MD_SPANTYPE t, void* d, void* u) {
    return static_cast<TreeBuilder*>(u)->span(t, d, false);
  }
  static int text_cb(MD_TEXTTYPE t, const MD_CHAR* s, MD_SIZE n, void* u) {
    return static_cast<TreeBuilder*>(u)->text(t, std::string_view(s, n));
  }

 private:
  struct Open {
    Block* block;
    bool implicit;  // a paragraph made for the bare text of a tight list item
    bool flat = false;  // a container past kMaxBlockDepth: its content joins its parent
  };

 public:
  bool too_deep = false;  // some quote or list was nested past kMaxBlockDepth

 private:

  void close_implicit() {
    if (!stack_.empty() && stack_.back().implicit) stack_.pop_back();
  }

  Block* push(BlockKind k) {
    std::vector<Block>& into = stack_.empty() ? out_ : stack_.back().block->children;
    Block b;
    b.kind = k;
    b.line = into.empty() && stack_.empty() && out_.empty() ? line_ : 0;
    into.push_back(std::move(b));
    return &into.back();
  }

  int enter(MD_BLOCKTYPE t, void* d) {
    if (t == MD_BLOCK_DOC) return 0;
    close_implicit();
    // The block tree stays shallow whatever the file holds: the player draws it and the
    // destructor frees it recursively, so 20,000 nested '>' would overflow the stack.
    const bool container = t == MD_BLOCK_QUOTE || t == MD_BLOCK_UL || t == MD_BLOCK_OL ||
                           t == MD_BLOCK_LI;
    if (container && stack_.size() >= kMaxBlockDepth) {
      too_deep = true;
      stack_.push_back({stack_.back().block, false, true});
      return 0;
    }
    Block* b = nullptr;
    switch (t) {
      case MD_BLOCK_QUOTE: b = push(BlockKind::Quote); break;
      case MD_BLOCK_UL: b = push(BlockKind::List); break;
      case MD_BLOCK_OL:
        b = push(BlockKind::List);
        b->ordered = true;
        b->start = int(static_cast<MD_BLOCK_OL_DETAIL*>(d)->start);
        break;
      case MD_BLOCK_LI: b = push(BlockKind::ListItem); break;
      case MD_BLOCK_HR: b = push(BlockKind::Rule); break;
      case MD_BLOCK_H:
        b = push(BlockKind::Heading);
        b->level = int(static_cast<MD_BLOCK_H_DETAIL*>(d)->level);
        break;
      case MD_BLOCK_CODE: {
        b = push(BlockKind::Code);
        auto* cd = static_cast<MD_BLOCK_CODE_DETAIL*>(d);
        b->info = std::string(cd->lang.text ? std::string_view(cd->lang.text, cd->lang.size)
                                            : std::string_view());
        break;
      }
      default: b = push(BlockKind::Paragraph); break;  // P, HTML, table parts
    }
    stack_.push_back({b, false});
    return 0;
  }

  int leave(MD_BLOCKTYPE t, void*) {
    if (t == MD_BLOCK_DOC) return 0;
    close_implicit();
    if (!stack_.empty() && stack_.back().flat) {
      stack_.pop_back();
      return 0;
    }
    if (!stack_.empty()) {
      Block* b = stack_.back().block;
      if (b->kind == BlockKind::Code && !b->text.empty() && b->text.back() == '\n')
        b->text.pop_back();
      stack_.pop_back();
    }
    return 0;
  }

  Block* leaf() {
    if (stack_.empty()) {
      Block* b = push(BlockKind::Paragraph);
      stack_.push_back({b, true});
      return b;
    }
    Block* top = stack_.back().block;
    if (top->kind == BlockKind::ListItem || top->kind == BlockKind::Quote ||
        top->kind == BlockKind::List) {
      Block* b = push(BlockKind::Paragraph);
      stack_.push_back({b, true});
      return b;
    }
    return top;
  }

  int span(MD_SPANTYPE t, void* d, bool enter) {
    leaf();
    int step = enter ? 1 : -1;
    switch (t) {
      case MD_SPAN_EM: em_ += step; break;
      case MD_SPAN_STRONG: strong_ += step; break;
      case MD_SPAN_CODE: code_ += step; break;
      case MD_SPAN_A:
        if (enter) {
          auto* a = static_cast<MD_SPAN_A_DETAIL*>(d);
          links_.emplace_back(a->href.text, a->href.size);
        } else if (!links_.empty()) {
          links_.pop_back();
        }
        break;
      default: break;
    }
    return 0;
  }

  void add_text(Block* b, std::string_view s, bool brk = false) {
    Span sp;
    sp.emphasis = em_ > 0;
    sp.strong = strong_ > 0;
    sp.code = code_ > 0;
    sp.link = links_.empty() ? "" : links_.back();
    sp.line_break = brk;
    if (!brk && !b->spans.empty()) {
      Span& last = b->spans.back();
      if (!last.line_break && last.emphasis == sp.emphasis && last.strong == sp.strong &&
          last.code == sp.code && last.link == sp.link) {
        last.text += s;
        return;
      }
    }
    sp.text = std::string(s);
    b->spans.push_back(std::move(sp));
  }

  int text(MD_TEXTTYPE t, std::string_view s) {
    Block* b = leaf();
    if (b->kind == BlockKind::Code) {
      b->text += s;
      return 0;
    }
    switch (t) {
      case MD_TEXT_BR: add_text(b, "", true); break;
      case MD_TEXT_SOFTBR: add_text(b, " "); break;
      case MD_TEXT_NULLCHAR: break;
      case MD_TEXT_ENTITY: add_text(b, entity(s)); break;
      default: add_text(b, s); break;
    }
    return 0;
  }

  static std::string entity(std::string_view e) {
    if (e == "&amp;") return "&";
    if (e == "&lt;") return "<";
    if (e == "&gt;") return ">";
    if (e == "&quot;") return "\"";
    if (e == "&nbsp;") return " ";
    if (e == "&times;") return "\xC3\x97";
    if (e == "&mdash;") return "\xE2\x80\x94";
    if (e == "&ndash;") return "\xE2\x80\x93";
    return std::string(e);
  }

  std::vector<Block>& out_;
  int line_;
  std::vector<Open> stack_;
  int em_ = 0, strong_ = 0, code_ = 0;
  std::vector<std::string> links_;
};

// The first line of `md` (numbered from first_line) with more than kMaxBlockDepth '>'
// markers; first_line when the nesting is of lists instead.
int deep_line(const std::string& md, int first_line) {
  int no = first_line;
  std::size_t count = 0;
  bool lead = true;
  for (char ch : md) {
    if (ch == '\n') {
      ++no;
      count = 0;
      lead = true;
      continue;
    }
    if (!lead) continue;
    if (ch == '>') {
      if (++count > kMaxBlockDepth) return no;
    } else if (ch != ' ' && ch != '\t') {
      lead = false;
    }
  }
  return first_line;
}

}  // namespace

namespace detail {

int render_markdown(const std::string& md, int first_line, std::vector<Block>& out) {
  if (trim(md).empty()) return 0;
  std::vector<Block> blocks;
  TreeBuilder tb(blocks, first_line);
  MD_PARSER p{};
  p.flags = MD_FLAG_NOHTML | MD_FLAG_PERMISSIVEURLAUTOLINKS | MD_FLAG_STRIKETHROUGH;
  p.enter_block = &TreeBuilder::enter_block;
  p.leave_block = &TreeBuilder::leave_block;
  p.enter_span = &TreeBuilder::enter_span;
  p.leave_span = &TreeBuilder::leave_span;
  p.text = &TreeBuilder::text_cb;
  md_parse(md.data(), MD_SIZE(md.size()), &p, &tb);
  for (auto& b : blocks) out.push_back(std::move(b));
  return tb.too_deep ? deep_line(md, first_line) : 0;
}

}  // namespace detail
}  // namespace ws::lesson
