package io.cdclake.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.Random;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * ExactJson gives what the two regular expressions of the macro cdc_exact_json give (the ones
 * python/cdc_lake/exact_json.py holds and ExactJson's comment documents), without Spark: the corner
 * cases of python/tests/test_exact_json.py, random texts against the expressions themselves, and the
 * texts on which the expressions (and the scanners before issue 27) took quadratic time.
 */
class ExactJsonTest {

  private static final Pattern STRIP = Pattern.compile(
      "(\"(?:[^\"\\\\]++|\\\\.)*+\")|,(?:\\s++|//[^\\n]*+|/\\*(?s:.*?)\\*/)*+([}\\]])|//[^\\n]*+|/\\*(?s:.*?)\\*/");
  private static final Pattern QUOTE = Pattern.compile(
      "\"((?:[^\"\\\\]++|\\\\.)*+)\"|([:\\[,]\\s*+)(-?[0-9][0-9.eE+\\-]*+)");

  private static String byRegularExpressions(String text) {
    String stripped = STRIP.matcher(text).replaceAll("$1$2");
    return QUOTE.matcher(stripped).replaceAll("$2\"$1$3\"");
  }

  @Test
  void dropsCommentsAndTrailingCommasAndQuotesBareNumbers() {
    assertEquals(
        "{\"a\": \"0.10\", \n \"b\": [\"1\", \"-2e5\"],  \"c\": \"1,]\"}",
        ExactJson.normalize("{\"a\": 0.10, // note\n \"b\": [1, -2e5,], /* x */ \"c\": \"1,]\"}"));
    // doc 002's tableChanges: a trailing comma with comments between it and the bracket
    assertEquals(
        "{\"a\": [\"1\"]}", ExactJson.normalize("{\"a\": [1], // the last one\n /* really */ }"));
    assertEquals("[\"1\", \"2\", \"3\"]", ExactJson.normalize("[1, 2, 3]"));
    // a leading plus is not a JSON number: left as it is (from_json then rejects the message)
    assertEquals("{\"a\":\"-0.5e-3\",\"b\":+1}", ExactJson.normalize("{\"a\":-0.5e-3,\"b\":+1}"));
    assertEquals(
        "{\"a\": \"tab\\ttab\", \"b\":\n\t\"12\"}",
        ExactJson.normalize("{\"a\": \"tab\\ttab\", \"b\":\n\t12}"));
    assertEquals(
        "{\"a\": \"é\uD834\uDD1E\", \"b\": \"7\"}",
        ExactJson.normalize("{\"a\": \"é\uD834\uDD1E\", \"b\": 7}"));
  }

  @Test
  void givesTheSameStringWhenNothingChanges() {
    String text = "{\"a\": \"1\", \"b\": [true, null]}";
    assertSame(text, ExactJson.normalize(text));
    assertEquals("", ExactJson.normalize(""));
  }

  /** test_exact_json.py's test_normalize_corner_cases, one row each: text, then normalized. */
  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '`',
      textBlock = """
          {"a": 1 /* never closed                 | {"a": "1" /* never closed
          {"a": 1, /* never closed }              | {"a": "1", /* never closed }
          {"a": "/* in a string */", "b": 2}      | {"a": "/* in a string */", "b": "2"}
          {"a": 1 */ , "b": 2}                    | {"a": "1" */ , "b": "2"}
          {"a": /* /* nested */ 1 */ }            | {"a":  "1" */ }
          {"a": "x\\"y, 1 /* c */ ,2              | {"a": "x\\"y, "1"  ,"2"
          {"a": 1,}                               | {"a": "1"}
          `{"a": "unterminated, 1, 2`             | `{"a": "unterminated, "1", "2"`
          """)
  void cornerCases(String text, String normalized) {
    assertEquals(normalized, ExactJson.normalize(text));
    assertEquals(byRegularExpressions(text), ExactJson.normalize(text));
  }

  @Test
  void anUnterminatedStringEndsAtABackslashBeforeALineTerminator() {
    String text = "[\"\\\" ,1 /* c */ ,2 \\\n]";
    assertEquals("[\"\\\" ,\"1\"  ,\"2\" \\\n]", ExactJson.normalize(text));
    for (String terminator : new String[] {"\r", "\u0085", "\u2028", "\u2029"}) {
      String other = "[\"\\\" ,1 \\" + terminator + "]";
      assertEquals(byRegularExpressions(other), ExactJson.normalize(other));
    }
  }

  /**
   * Random texts of the characters the expressions care about: ExactJson gives exactly what they
   * give (test_jvm_functions.py checks the same through Spark, on 30,000 texts).
   */
  @Test
  void equalsTheRegularExpressionsOnRandomTexts() {
    String[] pieces = {
      "\"", "\"", "\\", "\\\"", "/", "*", "/*", "*/", "//", ",", ",", ":", "[", "]", "{", "}", " ",
      "\n", "\r", "\t", "\u000B", "\f", "\u0085", "\u2028", "\u00A0", "-", "1", "0.5", "e", "E",
      "+", "x", "é", "\uD83D\uDE80", "null", "true"
    };
    Random random = new Random(20261126L);
    for (int t = 0; t < 20_000; t++) {
      StringBuilder text = new StringBuilder();
      for (int length = random.nextInt(25); length > 0; length--) {
        text.append(pieces[random.nextInt(pieces.length)]);
      }
      String s = text.toString();
      assertEquals(byRegularExpressions(s), ExactJson.normalize(s), () -> "text: " + s);
    }
  }

  /**
   * test_exact_json.py's PATHOLOGICAL texts, k = 10^6 repetitions of a piece (3 to 9 MB): a scan
   * that reads the rest again at every opening (the regular expressions, or the scanners before
   * issue 27) needs about 10^12 steps (hours), the linear scan a few million (well under a second).
   * No speed is asserted: the timeout only turns such a hang into a failure.
   * The expected text is checked against the regular expressions on a small k.
   */
  @ParameterizedTest
  @ValueSource(
      strings = {
        "comments opened after the last */",
        "commas before comments that never close",
        "an unterminated string full of escaped quotes",
        "escaped quotes up to a backslash before a newline",
        "line comments after a comma, never a bracket"
      })
  @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void pathologicalTextsFinish(String name) {
    for (int k : new int[] {50, 1_000_000}) {
      String[] textAndNormalized = pathological(name, k);
      if (k < 1000) {
        assertEquals(textAndNormalized[1], byRegularExpressions(textAndNormalized[0]));
      }
      assertEquals(textAndNormalized[1], ExactJson.normalize(textAndNormalized[0]));
    }
  }

  /** The pathological text of k pieces, and its normalized text. */
  private static String[] pathological(String name, int k) {
    return switch (name) {
      // only the first comment closes; every later opening is text
      case "comments opened after the last */" -> new String[] {
        "{\"a\": 1, /* x */ " + "/* ".repeat(k) + "}",
        "{\"a\": \"1\",  " + "/* ".repeat(k) + "}"};
      // no comment closes, so no comma trails; only the 1 after [ follows [ : or ,
      case "commas before comments that never close" -> new String[] {
        "{\"a\": [" + "1, /* ".repeat(k) + "]}",
        "{\"a\": [\"1\", /* " + "1, /* ".repeat(k - 1) + "]}"};
      // the string never closes: ordinary text, nothing to change
      case "an unterminated string full of escaped quotes" -> new String[] {
        "{\"a\": \"" + "\\\"".repeat(k), "{\"a\": \"" + "\\\"".repeat(k)};
      // the string stops at the backslash before the newline: the numbers after commas are quoted
      case "escaped quotes up to a backslash before a newline" -> new String[] {
        "[\"" + "\\\" ,1 /* ".repeat(k) + "\\\n]",
        "[\"" + "\\\" ,\"1\" /* ".repeat(k) + "\\\n]"};
      // every comment is dropped (its newline stays); no comma trails
      default -> new String[] {
        "[1" + ", // c\n".repeat(k) + "2]", "[\"1\"" + ", \n".repeat(k) + "\"2\"]"};
    };
  }
}
