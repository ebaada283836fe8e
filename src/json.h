// A small JSON writer for the statistics documents (no parser needed: zkl
// only produces JSON). Keys and strings are escaped; numbers are integers
// or finite doubles.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace zkl {

class JsonWriter {
 public:
  JsonWriter &BeginObject() { return Open('{'); }
  JsonWriter &EndObject() { return Close('}'); }
  JsonWriter &BeginArray() { return Open('['); }
  JsonWriter &EndArray() { return Close(']'); }

  // The key of the next value inside an object.
  JsonWriter &Key(std::string_view key) {
    Separate();
    AppendString(key);
    out_ += ':';
    after_key_ = true;
    return *this;
  }
  JsonWriter &String(std::string_view s) {
    Separate();
    AppendString(s);
    return *this;
  }
  JsonWriter &Int(int64_t v) {
    Separate();
    out_ += std::to_string(v);
    return *this;
  }
  JsonWriter &Uint(uint64_t v) {
    Separate();
    out_ += std::to_string(v);
    return *this;
  }
  JsonWriter &Double(double v) {
    Separate();
    if (!std::isfinite(v)) v = 0;
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f", v);
    out_ += buf;
    return *this;
  }
  JsonWriter &Bool(bool v) {
    Separate();
    out_ += v ? "true" : "false";
    return *this;
  }
  // Shorthands for "key": value.
  JsonWriter &Field(std::string_view key, std::string_view v) { return Key(key).String(v); }
  JsonWriter &Field(std::string_view key, const char *v) { return Key(key).String(v); }
  JsonWriter &Field(std::string_view key, int64_t v) { return Key(key).Int(v); }
  JsonWriter &Field(std::string_view key, uint64_t v) { return Key(key).Uint(v); }
  JsonWriter &Field(std::string_view key, int v) { return Key(key).Int(v); }
  JsonWriter &Field(std::string_view key, bool v) { return Key(key).Bool(v); }
  JsonWriter &Field(std::string_view key, double v) { return Key(key).Double(v); }

  const std::string &str() const { return out_; }
  std::string Take() { return std::move(out_); }

 private:
  JsonWriter &Open(char c) {
    Separate();
    out_ += c;
    first_.push_back(true);
    return *this;
  }
  JsonWriter &Close(char c) {
    out_ += c;
    if (!first_.empty()) first_.pop_back();
    return *this;
  }
  // A comma before every element but the first of its container.
  void Separate() {
    if (after_key_) {
      after_key_ = false;
      return;
    }
    if (first_.empty()) return;
    if (!first_.back()) out_ += ',';
    first_.back() = false;
  }
  void AppendString(std::string_view s) {
    out_ += '"';
    for (unsigned char c : s) {
      switch (c) {
        case '"': out_ += "\\\""; break;
        case '\\': out_ += "\\\\"; break;
        case '\n': out_ += "\\n"; break;
        case '\r': out_ += "\\r"; break;
        case '\t': out_ += "\\t"; break;
        default:
          if (c < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            out_ += buf;
          } else {
            out_ += static_cast<char>(c);
          }
      }
    }
    out_ += '"';
  }

  std::string out_;
  std::vector<bool> first_;
  bool after_key_ = false;
};

}  // namespace zkl
