package io.cdclake.spark;

import org.apache.hadoop.hive.ql.exec.UDFArgumentException;
import org.apache.hadoop.hive.serde2.objectinspector.ObjectInspector;
import org.apache.hadoop.hive.serde2.objectinspector.PrimitiveObjectInspector;
import org.apache.hadoop.hive.serde2.objectinspector.primitive.StringObjectInspector;

/** Checks of the arguments a function is called with, shared by the project's GenericUDFs. */
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
}
