package io.cdclake.spark;

import org.apache.hadoop.hive.ql.exec.UDFArgumentException;
import org.apache.hadoop.hive.ql.metadata.HiveException;
import org.apache.hadoop.hive.ql.udf.generic.GenericUDF.DeferredObject;
import org.apache.hadoop.hive.serde2.objectinspector.ObjectInspector;
import org.apache.hadoop.hive.serde2.objectinspector.PrimitiveObjectInspector;
import org.apache.hadoop.hive.serde2.objectinspector.primitive.BinaryObjectInspector;
import org.apache.hadoop.hive.serde2.objectinspector.primitive.StringObjectInspector;

/**
 * Checks of the arguments a function is called with, and their values, shared by the project's
 * GenericUDFs.
 */
final class Arguments {

  private Arguments() {}

  /** The inspector of a function's only argument, a string; else an error naming the function. */
  static StringObjectInspector oneString(ObjectInspector[] arguments, String function, String what)
      throws UDFArgumentException {
    if (arguments.length != 1 || !isString(arguments[0])) {
      throw new UDFArgumentException(function + " takes one string argument: " + what);
    }
    return (StringObjectInspector) arguments[0];
  }

  /** Whether values of {@code inspector} are strings. */
  static boolean isString(ObjectInspector inspector) {
    return inspector.getCategory() == ObjectInspector.Category.PRIMITIVE
        && ((PrimitiveObjectInspector) inspector).getPrimitiveCategory()
            == PrimitiveObjectInspector.PrimitiveCategory.STRING;
  }

  /** The value of a string argument, null for null. */
  static String string(DeferredObject argument, StringObjectInspector inspector) throws HiveException {
    Object value = argument.get();
    return value == null ? null : inspector.getPrimitiveJavaObject(value);
  }

  /** The value of a binary argument, null for null. */
  static byte[] bytes(DeferredObject argument, BinaryObjectInspector inspector) throws HiveException {
    Object value = argument.get();
    return value == null ? null : inspector.getPrimitiveJavaObject(value);
  }
}
