package io.cdclake.spark;

import java.util.Arrays;
import org.apache.hadoop.hive.ql.exec.Description;

/**
 * The JSON normalization of the dbt macro {@code cdc_exact_json}, as one linear scan per pass
 * instead of two regular-expression replacements: the same output, character for character.
 *
 * <ol>
 *   <li>Strip: drop {@code //} and {@code /* *}{@code /} comments and a trailing comma before
 *       {@code }} or {@code ]} (also with comments between them); string literals are kept.
 *   <li>Quote: put quotes around every bare number that follows {@code :}, {@code [} or
 *       {@code ,} (after optional whitespace), so that {@code from_json} keeps its exact text.
 * </ol>
 *
 * <p>The regular expressions it replaces (python/cdc_lake/exact_json.py holds them too):
 * <pre>
 * strip: ("(?:[^"\\]++|\\.)*+")|,(?:\s++|//[^\n]*+|/\*(?s:.*?)\*&#47;)*+([}\]])|//[^\n]*+|/\*(?s:.*?)\*&#47;
 *        replaced by $1$2
 * quote: "((?:[^"\\]++|\\.)*+)"|([:\[,]\s*+)(-?[0-9][0-9.eE+\-]*+)
 *        replaced by $2"$1$3"
 * </pre>
 * Every rule below mirrors one part of them, including what happens when a part does not match
 * (an unterminated string or comment is then ordinary text).
 *
 * <p>Linear where the regular expressions are not: they search again at every opening that does
 * not close, so a text with many {@code /*} after its last {@code *}{@code /}, or an unterminated
 * string holding many {@code \"}, costs the square of its length. Here a {@link Text} remembers
 * where the last {@code *}{@code /} is and which span an unterminated string covers (every
 * {@code "} inside that span opens a string that ends unterminated at the same place).
 */
@Description(
    name = "cdc_exact_json",
    value = "_FUNC_(text) - text with comments and trailing commas dropped and bare numbers quoted")
public final class ExactJson extends TextFunction {

  @Override
  String name() {
    return "cdc_exact_json";
  }

  @Override
  String argument() {
    return "a JSON text";
  }

  @Override
  String apply(String text) {
    return normalize(text);
  }

  /** Both passes. */
  public static String normalize(String text) {
    return quoteNumbers(strip(text));
  }

  /** Pass 1: drop comments and trailing commas, keep string literals. */
  public static String strip(String s) {
    return strip(new Edit(s, false)).text();
  }

  /** Pass 2: quote the bare numbers after {@code :}, {@code [} or {@code ,}. */
  public static String quoteNumbers(String s) {
    return quoteNumbers(new Edit(s, false)).text();
  }

  /**
   * Both passes, with where each character of the result comes from in {@code text} (an added
   * quote comes from the {@code :}, {@code [} or {@code ,} before its number): JsonError maps the
   * position of an error in the normalized text back to the message's own text.
   */
  static Normalized normalizeTracked(String text) {
    Edit stripped = strip(new Edit(text, true));
    Edit quoted = quoteNumbers(new Edit(stripped.text(), true));
    int[] origin = new int[quoted.text().length()];
    for (int k = 0; k < origin.length; k++) {
      origin[k] = stripped.origin(quoted.origin(k));
    }
    return new Normalized(quoted.text(), origin);
  }

  /** A normalized text, and per character the index in the text before it that it comes from. */
  record Normalized(String text, int[] origin) {}

  private static Edit strip(Edit edit) {
    String s = edit.input;
    Text text = new Text(s);
    int n = s.length();
    int i = 0;
    while (i < n) {
      char c = s.charAt(i);
      if (c == '"') {
        int end = text.stringEnd(i);
        i = end > 0 ? end : i + 1;
      } else if (c == ',') {
        int bracket = text.trailingCommaBracket(i);
        if (bracket > 0) {
          edit.drop(i, bracket); // the comma and what follows it up to the bracket
          i = bracket; // the bracket itself is ordinary text
        } else {
          i++;
        }
      } else if (c == '/' && i + 1 < n && s.charAt(i + 1) == '/') {
        int end = lineCommentEnd(s, i);
        edit.drop(i, end);
        i = end;
      } else if (c == '/' && i + 1 < n && s.charAt(i + 1) == '*') {
        int end = text.blockCommentEnd(i);
        if (end > 0) {
          edit.drop(i, end);
          i = end;
        } else {
          i++;
        }
      } else {
        i++;
      }
    }
    return edit.done();
  }

  private static Edit quoteNumbers(Edit edit) {
    String s = edit.input;
    Text text = new Text(s);
    int n = s.length();
    int i = 0;
    while (i < n) {
      char c = s.charAt(i);
      if (c == '"') {
        int end = text.stringEnd(i);
        i = end > 0 ? end : i + 1;
      } else if (c == ':' || c == '[' || c == ',') {
        int start = i + 1;
        while (start < n && isSpace(s.charAt(start))) {
          start++;
        }
        int digit = start < n && s.charAt(start) == '-' ? start + 1 : start;
        if (digit < n && isDigit(s.charAt(digit))) {
          int end = digit + 1;
          while (end < n && isNumberChar(s.charAt(end))) {
            end++;
          }
          edit.insert(start, '"', i);
          edit.insert(end, '"', i);
          i = end;
        } else {
          i++;
        }
      } else {
        i++;
      }
    }
    return edit.done();
  }

  /**
   * One pass's output: its input with spans dropped and characters inserted, built only at the
   * first change (a text that needs none is returned as it is); with {@code tracked}, also the
   * index in the input that each output character comes from.
   */
  static final class Edit {
    private final String input;
    private final boolean tracked;
    private StringBuilder out; // null until the first change
    private int[] origin; // tracked only: origin[k] is the input index of output character k
    private int size;
    private int copied; // input[copied, ...) is still to be appended
    private String text;

    Edit(String input, boolean tracked) {
      this.input = input;
      this.tracked = tracked;
    }

    /** Drop input[from, to). */
    void drop(int from, int to) {
      copyTo(from);
      copied = to;
    }

    /** Insert {@code c} before input[at], as if it came from input[from]. */
    void insert(int at, char c, int from) {
      copyTo(at);
      out.append(c);
      if (tracked) {
        grow(1);
        origin[size++] = from;
      }
    }

    private void copyTo(int to) {
      if (out == null) {
        out = new StringBuilder(input.length() + 16);
        if (tracked) {
          origin = new int[input.length() + 16];
        }
      }
      out.append(input, copied, to);
      if (tracked) {
        grow(to - copied);
        for (int k = copied; k < to; k++) {
          origin[size++] = k;
        }
      }
      copied = to;
    }

    private void grow(int more) {
      if (size + more > origin.length) {
        origin = Arrays.copyOf(origin, Math.max(origin.length * 2, size + more));
      }
    }

    Edit done() {
      if (out == null) {
        text = input;
      } else {
        copyTo(input.length());
        text = out.toString();
      }
      return this;
    }

    /** The output (after {@link #done}). */
    String text() {
      return text;
    }

    /** The input index that output character {@code k} comes from (after {@link #done}). */
    int origin(int k) {
      return out == null ? k : origin[k];
    }
  }

  /** One text and what its scan has learnt about it, so that no opening reads the rest again. */
  static final class Text {
    private final String s;
    private final int n;
    /** The index of the last {@code *}{@code /}, -1 when there is none; -2 until looked up. */
    private int lastClose = -2;
    /** Every {@code "} in (failedFrom, failedTo) opens a string that does not close. */
    private int failedFrom = -1;
    private int failedTo = -1;

    Text(String s) {
      this.s = s;
      this.n = s.length();
    }

    /**
     * The index after the string literal that opens at {@code start}, or -1 when it does not
     * close: {@code "(?:[^"\\]++|\\.)*+"}, where {@code .} is any character but a line
     * terminator. A string that does not close stops at some {@code f} (the end, or a backslash
     * before a line terminator or at the end); every {@code "} between {@code start} and {@code f}
     * is the second character of an escape, so a string opening there reads the same characters
     * from the next one on, in step, and stops at {@code f} too: remembered, not read again.
     */
    int stringEnd(int start) {
      if (start > failedFrom && start < failedTo) {
        return -1;
      }
      int j = start + 1;
      while (j < n) {
        char c = s.charAt(j);
        if (c == '"') {
          return j + 1;
        }
        if (c == '\\') {
          if (j + 1 < n && !isLineTerminator(s.charAt(j + 1))) {
            j += 2;
          } else {
            break;
          }
        } else {
          j++;
        }
      }
      failedFrom = start;
      failedTo = j;
      return -1;
    }

    /**
     * For a comma at {@code comma}: the index of the {@code }} or {@code ]} it trails, with only
     * whitespace and comments between them, or -1:
     * {@code ,(?:\s++|//[^\n]*+|/\*(?s:.*?)\*&#47;)*+([}\]])}.
     */
    int trailingCommaBracket(int comma) {
      int j = comma + 1;
      while (j < n) {
        char c = s.charAt(j);
        if (isSpace(c)) {
          j++;
        } else if (c == '/' && j + 1 < n && s.charAt(j + 1) == '/') {
          j = lineCommentEnd(s, j);
        } else if (c == '/' && j + 1 < n && s.charAt(j + 1) == '*') {
          int end = blockCommentEnd(j);
          if (end < 0) {
            break;
          }
          j = end;
        } else {
          break;
        }
      }
      return j < n && (s.charAt(j) == '}' || s.charAt(j) == ']') ? j : -1;
    }

    /**
     * {@code /\*(?s:.*?)\*&#47;}: the index after the first closing {@code *}{@code /}, or -1.
     * An opening after the last closing fails at once instead of reading to the end again.
     */
    int blockCommentEnd(int start) {
      if (lastClose == -2) {
        lastClose = s.lastIndexOf("*/");
      }
      if (lastClose < start + 2) {
        return -1;
      }
      return s.indexOf("*/", start + 2) + 2;
    }
  }

  /** {@code //[^\n]*+}: the index of the newline that ends the comment (kept), or the end. */
  static int lineCommentEnd(String s, int start) {
    int end = s.indexOf('\n', start + 2);
    return end < 0 ? s.length() : end;
  }

  /** Java's {@code \s}: space, tab, newline, vertical tab, form feed, carriage return. */
  static boolean isSpace(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\u000B' || c == '\f' || c == '\r';
  }

  /** What Java's {@code .} does not match (without DOTALL). */
  static boolean isLineTerminator(char c) {
    return c == '\n' || c == '\r' || c == '\u0085' || c == '\u2028' || c == '\u2029';
  }

  static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }

  static boolean isNumberChar(char c) {
    return (c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-';
  }
}
