package io.cdclake.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * Utf8Error says what CPython's UTF-8 decoder says about the first bad sequence (python/tests/
 * test_jvm_functions.py compares it with exact_json.explain_utf8 on random bytes).
 */
class Utf8ErrorTest {

  private static byte[] bytes(int... values) {
    byte[] out = new byte[values.length];
    for (int i = 0; i < values.length; i++) {
      out[i] = (byte) values[i];
    }
    return out;
  }

  @Test
  void textIsNull() {
    assertNull(Utf8Error.explain("{\"a\": \"é第🚀\"}".getBytes(StandardCharsets.UTF_8)));
    assertNull(Utf8Error.explain(new byte[0]));
  }

  @Test
  void saysWhereTheBadSequenceStarts() {
    assertEquals(
        "not valid UTF-8 text at byte offset 7 (bytes c3 28 22 7d): invalid continuation byte",
        Utf8Error.explain("{\"a\": \"\u00c3(\"}".getBytes(StandardCharsets.ISO_8859_1)));
    assertEquals(
        "not valid UTF-8 text at byte offset 1 (bytes ff): invalid start byte", Utf8Error.explain(bytes(0x41, 0xFF)));
    assertEquals(
        "not valid UTF-8 text at byte offset 0 (bytes e4 bd): unexpected end of data",
        Utf8Error.explain(bytes(0xE4, 0xBD)));
  }

  @Test
  void overlongFormsSurrogatesAndTooHighAreBadContinuations() {
    assertEquals(
        "not valid UTF-8 text at byte offset 0 (bytes c0 80): invalid start byte", Utf8Error.explain(bytes(0xC0, 0x80)));
    assertEquals(
        "not valid UTF-8 text at byte offset 0 (bytes e0 80 80): invalid continuation byte",
        Utf8Error.explain(bytes(0xE0, 0x80, 0x80)));
    assertEquals(
        "not valid UTF-8 text at byte offset 0 (bytes ed a0 80): invalid continuation byte",
        Utf8Error.explain(bytes(0xED, 0xA0, 0x80)));
    assertEquals(
        "not valid UTF-8 text at byte offset 0 (bytes f4 90 80 80): invalid continuation byte",
        Utf8Error.explain(bytes(0xF4, 0x90, 0x80, 0x80)));
    // cut short after a second byte that could not continue it: the continuation is what is wrong
    assertEquals(
        "not valid UTF-8 text at byte offset 0 (bytes f0 8f): invalid continuation byte",
        Utf8Error.explain(bytes(0xF0, 0x8F)));
  }
}
