package io.cdclake.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

/**
 * JsonError says what Python's json module says about the normalized message, at the offset in the
 * message's own text: python/tests/test_exact_json.py's cases for exact_json.explain, and the
 * escapes, literals and numbers whose positions CPython's scanner fixes. python/tests/
 * test_jvm_functions.py compares the two on tens of thousands of broken texts.
 */
class JsonErrorTest {

  @Test
  void saysWhereAndWhatAsPythonDoes() {
    assertEquals(
        "invalid JSON at offset 6: the message ends early (Expecting ',' delimiter)",
        JsonError.explain("{\"a\":1"));
    assertEquals("invalid JSON at offset 8: Expecting ',' delimiter", JsonError.explain("{\"a\": 1 \"b\": 2}"));
    // the offset counts the comment that normalization dropped
    assertEquals(
        "invalid JSON at offset 25: Expecting ':' delimiter",
        JsonError.explain("{\"a\": 1, // comment\n \"b\" 2}"));
    // ... and not the quotes it added around the number
    assertEquals(
        "invalid JSON at offset 29: Expecting ',' delimiter",
        JsonError.explain("{\"a\": 12345678901234567890.5 x}"));
    assertEquals("invalid JSON at offset 0: Expecting value", JsonError.explain("hello"));
    assertEquals("invalid JSON at offset 11: Expecting ',' delimiter", JsonError.explain("{\"a\": \"x\"} {\"b\": 1}"));
    assertEquals("invalid JSON at offset 4: Extra data", JsonError.explain("[1] x"));
    assertEquals(
        "invalid JSON at offset 1: Expecting property name enclosed in double quotes",
        JsonError.explain("{1: 2}"));
  }

  @Test
  void stringsAndTheirEscapes() {
    assertEquals("invalid JSON at offset 5: Unterminated string starting at", JsonError.explain("{\"a\":\"b"));
    assertEquals("invalid JSON at offset 6: Invalid \\escape", JsonError.explain("{\"a\":\"\\x\"}"));
    // the position of the u of the escape
    assertEquals("invalid JSON at offset 7: Invalid \\uXXXX escape", JsonError.explain("{\"a\":\"\\u12\"}"));
    assertEquals(
        "invalid JSON at offset 13: Invalid \\uXXXX escape", JsonError.explain("{\"a\":\"\\ud800\\u12x\"}"));
    assertNull(JsonError.explain("{\"a\":\"\\ud83d\\ude00 \\n \\/\"}"));
    // control characters in strings are allowed (allowUnquotedControlChars)
    assertNull(JsonError.explain("[{\"a\": \"tab\there\"}]"));
  }

  @Test
  void offsetsCountCharactersNotUtf16Units() {
    assertEquals("invalid JSON at offset 17: Expecting value", JsonError.explain("{\"a\": \"é😀\", \"b\": x}"));
  }

  @Test
  void literalsAndNumbers() {
    assertNull(JsonError.explain("{\"a\":NaN,\"b\":-Infinity,\"c\":Infinity,\"d\":null,\"e\":true,\"f\":false}"));
    assertEquals("invalid JSON at offset 5: Expecting value", JsonError.explain("{\"a\":-Inf}"));
    assertEquals("invalid JSON at offset 5: Expecting value", JsonError.explain("{\"a\":tru}"));
    // a number not after : [ or , is not quoted: read as Python reads it
    assertEquals("invalid JSON at offset 1: Expecting ',' delimiter", JsonError.explain("01"));
    assertEquals("invalid JSON at offset 1: Expecting value", JsonError.explain("[-]"));
  }

  @Test
  void whatJsonAllowsAfterNormalization() {
    assertNull(JsonError.explain("{\"a\": 1,}"));
    assertNull(JsonError.explain("{\"a\": [1], // the last one\n /* really */ }"));
    assertNull(JsonError.explain(""));
  }

  @Test
  void whatSparkCannotRead() {
    assertEquals(
        "invalid JSON: nested more than 1000 levels deep", JsonError.explain("[".repeat(1200) + "]".repeat(1200)));
    assertEquals(
        "invalid JSON: nested more than 1000 levels deep",
        JsonError.explain("{\"a\": ".repeat(1001) + "1" + "}".repeat(1001)));
    // 999 levels in the message, 1000 with the brackets staging wraps it in: Spark reads it
    assertNull(JsonError.explain("{\"a\": ".repeat(999) + "1" + "}".repeat(999)));
    assertEquals(
        "unreadable JSON: a value of 20000001 characters (Spark reads at most 20000000)",
        JsonError.explain("{\"a\": \"" + "x".repeat(20_000_001) + "\"}"));
  }
}
