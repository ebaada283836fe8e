package io.zkl;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A strict little JSON parser for the tests (the statistics documents): Map, List, String, Double, Boolean, null. */
final class MiniJson {
  private final String s;
  private int i;

  private MiniJson(String s) {
    this.s = s;
  }

  static Object parse(String text) {
    MiniJson p = new MiniJson(text);
    Object v = p.value();
    p.ws();
    if (p.i != text.length()) throw p.error("trailing characters");
    return v;
  }

  private IllegalArgumentException error(String what) {
    return new IllegalArgumentException("JSON: " + what + " at " + i);
  }

  private void ws() {
    while (i < s.length() && Character.isWhitespace(s.charAt(i))) i++;
  }

  private void expect(char c) {
    ws();
    if (i >= s.length() || s.charAt(i) != c) throw error("expected '" + c + "'");
    i++;
  }

  private Object value() {
    ws();
    if (i >= s.length()) throw error("unexpected end");
    char c = s.charAt(i);
    if (c == '{') return object();
    if (c == '[') return array();
    if (c == '"') return string();
    if (s.startsWith("true", i)) { i += 4; return Boolean.TRUE; }
    if (s.startsWith("false", i)) { i += 5; return Boolean.FALSE; }
    if (s.startsWith("null", i)) { i += 4; return null; }
    int start = i;
    while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) i++;
    if (start == i) throw error("unexpected '" + c + "'");
    return Double.parseDouble(s.substring(start, i));
  }

  private Map<String, Object> object() {
    Map<String, Object> m = new LinkedHashMap<>();
    expect('{');
    ws();
    if (s.charAt(i) == '}') { i++; return m; }
    for (;;) {
      ws();
      String k = string();
      expect(':');
      m.put(k, value());
      ws();
      if (s.charAt(i) == ',') { i++; continue; }
      expect('}');
      return m;
    }
  }

  private List<Object> array() {
    List<Object> l = new ArrayList<>();
    expect('[');
    ws();
    if (s.charAt(i) == ']') { i++; return l; }
    for (;;) {
      l.add(value());
      ws();
      if (s.charAt(i) == ',') { i++; continue; }
      expect(']');
      return l;
    }
  }

  private String string() {
    expect('"');
    StringBuilder b = new StringBuilder();
    for (;;) {
      if (i >= s.length()) throw error("unterminated string");
      char c = s.charAt(i++);
      if (c == '"') return b.toString();
      if (c == '\\') {
        char e = s.charAt(i++);
        switch (e) {
          case 'n': b.append('\n'); break;
          case 't': b.append('\t'); break;
          case 'r': b.append('\r'); break;
          case 'b': b.append('\b'); break;
          case 'f': b.append('\f'); break;
          case 'u': b.append((char) Integer.parseInt(s.substring(i, i + 4), 16)); i += 4; break;
          default: b.append(e);
        }
      } else {
        b.append(c);
      }
    }
  }
}
