package io.cdclake.spark;

import org.apache.hadoop.hive.ql.exec.Description;

/**
 * Why a message is not JSON as the staging models parse it, or null when it is: the quarantine
 * reason of a message whose {@code from_json} gave nothing. Staging calls it only for those, so
 * it costs nothing for the messages that parse.
 *
 * <p>The staging models parse {@code cdc_exact_json(message)} (comments and trailing commas
 * dropped, bare numbers quoted), wrapped in {@code [} and {@code ]} unless it starts with
 * {@code [}. This function normalizes the message the same way ({@link ExactJson}), remembering
 * where each character came from, reads the result as Python's json module reads it, and maps the
 * position of the first error back to the message's own text, counted in characters (code points)
 * from 0: {@code invalid JSON at offset 123: Expecting ',' delimiter}. The messages and positions
 * are those of CPython's {@code json.loads(text, strict=False)} (python/tests/test_jvm_functions.py
 * compares them on random texts), so a reason reads the same whatever read the message.
 *
 * <p>What Python accepts but Spark's reader (Jackson) does not: nesting deeper than
 * {@value #MAX_NESTING_DEPTH} levels (said as soon as the scan gets there, as Python's recursion
 * limit would) and a string longer than {@value #MAX_STRING_LENGTH} characters. A message that is
 * valid JSON gives null: staging then says that it is JSON of another shape.
 */
@Description(
    name = "cdc_json_error",
    value = "_FUNC_(text) - why text is not JSON as the staging models parse it, or null")
public final class JsonError extends TextFunction {

  /** Spark's JSON reader (Jackson) rejects documents nested deeper than this. */
  static final int MAX_NESTING_DEPTH = 1000;

  /** ... and strings longer than this (characters). */
  static final int MAX_STRING_LENGTH = 20_000_000;

  @Override
  String name() {
    return "cdc_json_error";
  }

  @Override
  String argument() {
    return "a message's text";
  }

  @Override
  String apply(String text) {
    return explain(text);
  }

  /** Why {@code text} is not JSON as staging parses it, or null. */
  public static String explain(String text) {
    ExactJson.Normalized normalized = ExactJson.normalizeTracked(text);
    boolean wrapped = !stripLeadingSpaces(text).startsWith("[");
    String json = wrapped ? "[" + normalized.text() + "\n]" : normalized.text();
    Reader reader = new Reader(json);
    Failure failure = reader.read();
    if (failure == Reader.TOO_DEEP) {
      return "invalid JSON: nested more than " + MAX_NESTING_DEPTH + " levels deep";
    }
    if (failure != null) {
      int[] origin = normalized.origin();
      int index = failure.position() - (wrapped ? 1 : 0);
      int offset = index >= 0 && index < origin.length ? origin[index] : text.length();
      String where = "invalid JSON at offset " + text.codePointCount(0, offset) + ": ";
      if (index >= origin.length && failure.message().startsWith("Expecting")) {
        return where + "the message ends early (" + failure.message() + ")";
      }
      return where + failure.message();
    }
    if (reader.longestString > MAX_STRING_LENGTH) {
      return "unreadable JSON: a value of " + reader.longestString + " characters (Spark reads at most "
          + MAX_STRING_LENGTH + ")";
    }
    return null;
  }

  /** SQL's ltrim and Python's lstrip(" "): leading spaces only. */
  private static String stripLeadingSpaces(String text) {
    int i = 0;
    while (i < text.length() && text.charAt(i) == ' ') {
      i++;
    }
    return text.substring(i);
  }

  /** The first error in a text: what CPython's json module says, and where (a char index). */
  record Failure(String message, int position) {}

  /**
   * A reader of one JSON text that stops at the first error, with CPython's messages and
   * positions (Modules/_json.c: scan_once_unicode, _parse_object_unicode, _parse_array_unicode,
   * scanstring_unicode, _match_number_unicode; Lib/json/decoder.py: JSONDecoder.decode).
   * Iterative (a stack of open brackets), so no text makes it recurse.
   */
  static final class Reader {
    static final Failure TOO_DEEP = new Failure("too deep", -1);

    private final String s;
    private final int n;
    private int i;
    /** The longest string literal read, in code points between its quotes (as written). */
    int longestString;

    Reader(String s) {
      this.s = s;
      this.n = s.length();
    }

    /** The first error, or null when the whole text is one JSON value and white space. */
    Failure read() {
      StringBuilder open = new StringBuilder(); // the open brackets, innermost last
      boolean expectingValue = true;
      i = skipSpace(0);
      while (expectingValue || open.length() > 0) {
        Failure failure = expectingValue ? value(open) : afterMember(open);
        if (failure != null) {
          return failure;
        }
        // a bracket opened that does not close at once, or a comma: a member's value comes next
        expectingValue = opened;
        opened = false;
      }
      int end = skipSpace(i);
      return end == n ? null : new Failure("Extra data", end);
    }

    /** Set by {@link #value} when it opened a bracket whose first member is to be read. */
    private boolean opened;

    /**
     * The value at i: a scalar (i after it), or an opening bracket, pushed on {@code open}, with i
     * at its first value (after the key of an object) or after its closing bracket.
     */
    private Failure value(StringBuilder open) {
      if (i >= n) {
        return new Failure("Expecting value", i);
      }
      char c = s.charAt(i);
      switch (c) {
        case '"':
          return string(i + 1);
        case '{':
        case '[':
          if (open.length() + 1 > MAX_NESTING_DEPTH) {
            return TOO_DEEP;
          }
          i = skipSpace(i + 1);
          if (i < n && s.charAt(i) == (c == '{' ? '}' : ']')) {
            i++;
            return null;
          }
          open.append(c);
          opened = true;
          return c == '{' ? key() : null;
        case 'n':
          return literal("null") ? null : number();
        case 't':
          return literal("true") ? null : number();
        case 'f':
          return literal("false") ? null : number();
        case 'N':
          return literal("NaN") ? null : number();
        case 'I':
          return literal("Infinity") ? null : number();
        case '-':
          return literal("-Infinity") ? null : number();
        default:
          return number();
      }
    }

    /**
     * After a member of the innermost open bracket: its closing bracket (popped), or a comma and
     * the next member's key (of an object), with {@link #opened} set so that its value is read.
     */
    private Failure afterMember(StringBuilder open) {
      int top = open.length() - 1;
      char bracket = open.charAt(top);
      i = skipSpace(i);
      if (i < n && s.charAt(i) == (bracket == '{' ? '}' : ']')) {
        open.setLength(top);
        i++;
        return null;
      }
      if (i >= n || s.charAt(i) != ',') {
        return new Failure("Expecting ',' delimiter", i);
      }
      i = skipSpace(i + 1);
      opened = true;
      return bracket == '{' ? key() : null;
    }

    /** A key at i, its ':' and the white space after it; i at the value. */
    private Failure key() {
      if (i >= n || s.charAt(i) != '"') {
        return new Failure("Expecting property name enclosed in double quotes", i);
      }
      Failure failure = string(i + 1);
      if (failure != null) {
        return failure;
      }
      i = skipSpace(i);
      if (i >= n || s.charAt(i) != ':') {
        return new Failure("Expecting ':' delimiter", i);
      }
      i = skipSpace(i + 1);
      return null;
    }

    /** Whether {@code word} is at i (then i is after it). */
    private boolean literal(String word) {
      if (s.startsWith(word, i)) {
        i += word.length();
        return true;
      }
      return false;
    }

    /** A number at i (_match_number_unicode): i after it, or "Expecting value" where it starts. */
    private Failure number() {
      int start = i;
      int last = n - 1;
      int j = i;
      if (s.charAt(j) == '-') {
        j++;
        if (j > last) {
          return new Failure("Expecting value", start);
        }
      }
      char c = s.charAt(j);
      if (c >= '1' && c <= '9') {
        j++;
        while (j <= last && isDigit(s.charAt(j))) {
          j++;
        }
      } else if (c == '0') {
        j++;
      } else {
        return new Failure("Expecting value", start);
      }
      if (j < last && s.charAt(j) == '.' && isDigit(s.charAt(j + 1))) {
        j += 2;
        while (j <= last && isDigit(s.charAt(j))) {
          j++;
        }
      }
      if (j < last && (s.charAt(j) == 'e' || s.charAt(j) == 'E')) {
        int exponent = j;
        j++;
        if (j < last && (s.charAt(j) == '-' || s.charAt(j) == '+')) {
          j++;
        }
        while (j <= last && isDigit(s.charAt(j))) {
          j++;
        }
        if (!isDigit(s.charAt(j - 1))) {
          j = exponent;
        }
      }
      i = j;
      return null;
    }

    /** The string whose first character is at {@code from} (scanstring_unicode); i after it. */
    private Failure string(int from) {
      int begin = from - 1;
      int j = from;
      while (true) {
        while (j < n && s.charAt(j) != '"' && s.charAt(j) != '\\') {
          j++;
        }
        if (j >= n) {
          return new Failure("Unterminated string starting at", begin);
        }
        if (s.charAt(j) == '"') {
          j++;
          break;
        }
        j++; // the backslash
        if (j == n) {
          return new Failure("Unterminated string starting at", begin);
        }
        char c = s.charAt(j);
        if (c != 'u') {
          if ("\"\\/bfnrt".indexOf(c) < 0) {
            return new Failure("Invalid \\escape", j - 1);
          }
          j++;
          continue;
        }
        int u = j;
        int end = u + 5; // after the four digits
        if (end >= n) {
          return new Failure("Invalid \\uXXXX escape", u);
        }
        int code = hex(u + 1);
        if (code < 0) {
          return new Failure("Invalid \\uXXXX escape", u);
        }
        j = end;
        if (code >= 0xD800 && code <= 0xDBFF && j + 6 < n && s.charAt(j) == '\\' && s.charAt(j + 1) == 'u') {
          int low = hex(j + 2);
          if (low < 0) {
            return new Failure("Invalid \\uXXXX escape", j + 1);
          }
          if (low >= 0xDC00 && low <= 0xDFFF) {
            j += 6;
          }
        }
      }
      int length = j - from - 1;
      if (length > MAX_STRING_LENGTH) {
        longestString = Math.max(longestString, s.codePointCount(from, j - 1));
      }
      i = j;
      return null;
    }

    /** The four hex digits from {@code at} as a number, or -1. */
    private int hex(int at) {
      int code = 0;
      for (int k = at; k < at + 4; k++) {
        char c = s.charAt(k);
        int digit = c >= '0' && c <= '9' ? c - '0'
            : c >= 'a' && c <= 'f' ? c - 'a' + 10
            : c >= 'A' && c <= 'F' ? c - 'A' + 10
            : -1;
        if (digit < 0) {
          return -1;
        }
        code = code * 16 + digit;
      }
      return code;
    }

    /** The index of the first character at or after {@code from} that is not JSON white space. */
    private int skipSpace(int from) {
      int j = from;
      while (j < n && isSpace(s.charAt(j))) {
        j++;
      }
      return j;
    }

    private static boolean isSpace(char c) {
      return c == ' ' || c == '\t' || c == '\n' || c == '\r';
    }

    private static boolean isDigit(char c) {
      return c >= '0' && c <= '9';
    }
  }
}
