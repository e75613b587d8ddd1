package io.cdclake.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * RowImageChains follows the rule of a table without a key: an insert starts a row, an update
 * continues the oldest live row equal to its before image, a delete ends it, identical rows are
 * counted; a change whose before image matches no live row is not chained (null).
 */
class RowImageChainsTest {

  private static List<Integer> chain(String[] ops, String[] befores, String[] afters) {
    return RowImageChains.chain(Arrays.asList(ops), Arrays.asList(befores), Arrays.asList(afters));
  }

  @Test
  void identicalRowsAreCountedAndTheOldestIsTaken() {
    List<Integer> starts = chain(
        new String[] {"insert", "insert", "update", "delete", "update", "snapshot", "delete"},
        new String[] {null, null, "A", "B", "A", null, "A"},
        new String[] {"A", "A", "B", null, "C", "A", null});
    // the update takes row 0 (the oldest A), the delete ends it as B, the second update takes
    // row 1, the snapshot starts a row, the last delete finds it (row 1 is C now)
    assertEquals(Arrays.asList(0, 1, 0, 0, 1, 5, 5), starts);
  }

  @Test
  void aChangeOfNoLiveRowIsNotChainedAndChangesNothing() {
    List<Integer> starts = chain(
        new String[] {"update", "delete", "insert", "update", "update"},
        new String[] {"X", "X", null, "A", "A"},
        new String[] {"Y", null, "A", null, "B"});
    // an update without an after image is not chained and leaves row 2 live, so the last update
    // still finds it
    assertEquals(Arrays.asList(null, null, 2, null, 2), starts);
  }

  @Test
  void unknownOpsAndEmptyInputsAreNotChained() {
    assertEquals(List.of(), chain(new String[0], new String[0], new String[0]));
    assertEquals(Arrays.asList((Integer) null), chain(new String[] {"truncate"}, new String[] {null},
        new String[] {"A"}));
    assertThrows(IllegalArgumentException.class,
        () -> chain(new String[] {"insert"}, new String[0], new String[] {"A"}));
  }

  /** The rule written plainly, as test_row_image_chains.py's reference model. */
  private static List<Integer> reference(String[] ops, String[] befores, String[] afters) {
    Map<String, List<Integer>> live = new HashMap<>();
    List<Integer> starts = new ArrayList<>();
    for (int i = 0; i < ops.length; i++) {
      Integer start = null;
      if (ops[i].equals("insert") || ops[i].equals("snapshot")) {
        start = afters[i] == null ? null : i;
      } else if (ops[i].equals("delete") || (ops[i].equals("update") && afters[i] != null)) {
        List<Integer> rows = befores[i] == null ? null : live.get(befores[i]);
        start = rows == null || rows.isEmpty() ? null : rows.remove(0);
      }
      if (start != null && !ops[i].equals("delete")) {
        live.computeIfAbsent(afters[i], image -> new ArrayList<>()).add(start);
      }
      starts.add(start);
    }
    return starts;
  }

  @Test
  void randomSequencesFollowTheRule() {
    Random random = new Random(31);
    String[] opChoices = {"insert", "snapshot", "update", "update", "delete"};
    String[] images = {"A", "B", "C", null};
    for (int run = 0; run < 5_000; run++) {
      int length = random.nextInt(40);
      String[] ops = new String[length];
      String[] befores = new String[length];
      String[] afters = new String[length];
      for (int i = 0; i < length; i++) {
        ops[i] = opChoices[random.nextInt(opChoices.length)];
        befores[i] = images[random.nextInt(images.length)];
        afters[i] = images[random.nextInt(images.length)];
      }
      assertEquals(reference(ops, befores, afters), chain(ops, befores, afters));
    }
  }

  @Test
  void aMillionChangesInOnePass() {
    int count = 1_000_000;
    String[] ops = new String[count];
    String[] befores = new String[count];
    String[] afters = new String[count];
    for (int i = 0; i < count; i++) {
      boolean insert = i % 2 == 0;
      ops[i] = insert ? "insert" : "update";
      befores[i] = insert ? null : "row-" + (i - 1);
      afters[i] = "row-" + i;
    }
    List<Integer> starts = chain(ops, befores, afters);
    assertEquals(count - 2, starts.get(count - 1));
  }
}
