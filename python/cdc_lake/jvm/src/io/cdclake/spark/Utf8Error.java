package io.cdclake.spark;

import org.apache.hadoop.hive.ql.exec.Description;
import org.apache.hadoop.hive.ql.exec.UDFArgumentException;
import org.apache.hadoop.hive.ql.metadata.HiveException;
import org.apache.hadoop.hive.ql.udf.generic.GenericUDF;
import org.apache.hadoop.hive.serde2.objectinspector.ObjectInspector;
import org.apache.hadoop.hive.serde2.objectinspector.PrimitiveObjectInspector;
import org.apache.hadoop.hive.serde2.objectinspector.primitive.BinaryObjectInspector;
import org.apache.hadoop.hive.serde2.objectinspector.primitive.PrimitiveObjectInspectorFactory;

/**
 * Why bytes are not UTF-8 text, or null when they are: the reason {@code cdc-lake land} gives a
 * message that is not UTF-8 (its {@code decode_error}). The landing calls it only for the messages
 * that Spark's {@code is_valid_utf8} rejects.
 *
 * <p>The reason says where the first bad sequence starts, its first bytes, and what is wrong, as
 * CPython's UTF-8 decoder says it (Objects/stringlib/codecs.h): {@code not valid UTF-8 text at byte
 * offset 7 (bytes c3 28 22 7d): invalid continuation byte}. A sequence is bad from its first byte:
 * a byte that cannot start one ({@code invalid start byte}: 80-c1, f5-ff), one whose next bytes are
 * not its continuation (also an overlong form, a surrogate, a code point above 10FFFF:
 * {@code invalid continuation byte}), or the end of the bytes in its middle ({@code unexpected
 * end of data}). python/cdc_lake/exact_json.explain_utf8 is the same in Python (the tests compare
 * them).
 */
@Description(name = "cdc_utf8_error", value = "_FUNC_(bytes) - why bytes are not UTF-8 text, or null")
public final class Utf8Error extends GenericUDF {

  private transient BinaryObjectInspector input;

  @Override
  public ObjectInspector initialize(ObjectInspector[] arguments) throws UDFArgumentException {
    if (arguments.length != 1
        || arguments[0].getCategory() != ObjectInspector.Category.PRIMITIVE
        || ((PrimitiveObjectInspector) arguments[0]).getPrimitiveCategory()
            != PrimitiveObjectInspector.PrimitiveCategory.BINARY) {
      throw new UDFArgumentException("cdc_utf8_error takes one binary argument: a message's bytes");
    }
    input = (BinaryObjectInspector) arguments[0];
    return PrimitiveObjectInspectorFactory.javaStringObjectInspector;
  }

  @Override
  public Object evaluate(DeferredObject[] arguments) throws HiveException {
    byte[] bytes = Arguments.bytes(arguments[0], input);
    return bytes == null ? null : explain(bytes);
  }

  @Override
  public String getDisplayString(String[] children) {
    return "cdc_utf8_error(" + children[0] + ")";
  }

  /** Why {@code bytes} are not UTF-8, or null. */
  public static String explain(byte[] bytes) {
    int n = bytes.length;
    int i = 0;
    while (i < n) {
      int b = bytes[i] & 0xFF;
      int length = b < 0x80 ? 1 : b < 0xC2 ? 0 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : b < 0xF5 ? 4 : 0;
      if (length == 0) {
        return reason(bytes, i, "invalid start byte");
      }
      for (int k = 1; k < length; k++) {
        if (i + k >= n) {
          return reason(bytes, i, "unexpected end of data");
        }
        if (!continues(b, k, bytes[i + k] & 0xFF)) {
          return reason(bytes, i, "invalid continuation byte");
        }
      }
      i += length;
    }
    return null;
  }

  /**
   * Whether {@code next} can be byte {@code k} (from 1) of a sequence that starts with
   * {@code first}: a continuation byte (80-bf), and for the second byte, one that makes no
   * overlong form (e0 a0-bf, f0 90-bf), no surrogate (ed 80-9f) and nothing above 10FFFF
   * (f4 80-8f).
   */
  private static boolean continues(int first, int k, int next) {
    if (next < 0x80 || next > 0xBF) {
      return false;
    }
    if (k > 1) {
      return true;
    }
    switch (first) {
      case 0xE0:
        return next >= 0xA0;
      case 0xED:
        return next < 0xA0;
      case 0xF0:
        return next >= 0x90;
      case 0xF4:
        return next < 0x90;
      default:
        return true;
    }
  }

  private static String reason(byte[] bytes, int at, String what) {
    StringBuilder shown = new StringBuilder();
    for (int k = at; k < Math.min(at + 4, bytes.length); k++) {
      if (k > at) {
        shown.append(' ');
      }
      shown.append(String.format("%02x", bytes[k] & 0xFF));
    }
    return "not valid UTF-8 text at byte offset " + at + " (bytes " + shown + "): " + what;
  }
}
