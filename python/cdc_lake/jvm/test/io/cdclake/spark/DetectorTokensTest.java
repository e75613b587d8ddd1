package io.cdclake.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * DetectorTokens gives what python/cdc_lake/formats.py's detector_tokens_sql gives with its regular
 * expression (regexp_extract_all of group 1, joined by commas, in commas), without Spark.
 */
class DetectorTokensTest {

  /** Names with the shapes of the real ones: one a prefix of another, case pairs, underscores. */
  private static final String NAMES = "TYPE,__light_type,database,databaseName,event,eventTime,op,type";

  private static final String[][] INDEX = DetectorTokens.index(NAMES);

  /** formats.py's _token_pattern for NAMES (the names sorted, their first letters sorted). */
  private static String byRegularExpression(String text) {
    TreeSet<String> names = new TreeSet<>(List.of(NAMES.split(",")));
    TreeSet<Character> first = new TreeSet<>();
    names.forEach(name -> first.add(name.charAt(0)));
    StringBuilder letters = new StringBuilder();
    first.forEach(letters::append);
    Pattern pattern = Pattern.compile("\"(?=[" + letters + "])(?=((?:" + String.join("|", names)
        + ")(?:\"(?=\\s*:)|(?=\"))))");
    List<String> found = new ArrayList<>();
    Matcher matcher = pattern.matcher(text);
    while (matcher.find()) {
      found.add(matcher.group(1));
    }
    return "," + String.join(",", found) + ",";
  }

  @Test
  void findsQuotedNamesAndMarksTheOnesAColonFollows() {
    assertEquals(",type\",op,", DetectorTokens.tokens("{\"type\" :\t\"op\"}", INDEX));
    assertEquals(",database\",databaseName\",", DetectorTokens.tokens(
        "{\"database\":1,\"databaseName\" \n: 2}", INDEX));
    assertEquals(",TYPE\",type,", DetectorTokens.tokens("{\"TYPE\": \"type\", \"Type\": 1}", INDEX));
  }

  @Test
  void missesUnclosedLongerAndShorterNames() {
    assertEquals(",,", DetectorTokens.tokens("", INDEX));
    assertEquals(",,", DetectorTokens.tokens("{\"types\": 1, \"ty\": \"eventTim\", \"op", INDEX));
    assertEquals(",,", DetectorTokens.tokens("type: op \"", INDEX));
  }

  @Test
  void everyQuoteIsACandidateEvenAClosingOrEscapedOne() {
    // "a"op" : the quote that closes "a" opens "op" too, as each rlike of the detectors sees it
    assertEquals(",op,", DetectorTokens.tokens("\"a\"op\"", INDEX));
    assertEquals(",event\",", DetectorTokens.tokens("\"x\\\"event\":", INDEX));
  }

  @Test
  void namesStartWithAnAsciiCharacter() {
    assertThrows(IllegalArgumentException.class, () -> DetectorTokens.index("type,événement"));
    assertEquals(",,", DetectorTokens.tokens("\"événement\":", INDEX));
  }

  /** test_jvm_functions.py's random detector texts, checked here against the expression itself. */
  @Test
  void equalsTheRegularExpressionOnRandomTexts() {
    List<String> pieces = new ArrayList<>();
    for (String name : NAMES.split(",")) {
      pieces.add(name);
      pieces.add("\"" + name + "\"");
      pieces.add("\"" + name + "\":");
      pieces.add("\"" + name + "\" \n:");
      pieces.add(name + "x");
      pieces.add(name.substring(0, name.length() - 1));
    }
    pieces.addAll(List.of("\"", "\"", "\"", "\\\"", ":", " ", "\t", "\n", "\r", "\u000B", "\f",
        "\u0085", "\u00A0", ",", "{", "}", "[", "]", "é", "第", "\uD83D\uDE80", "1", "null"));
    Random random = new Random(20261126L);
    for (int t = 0; t < 20_000; t++) {
      StringBuilder text = new StringBuilder();
      for (int length = random.nextInt(30); length > 0; length--) {
        text.append(pieces.get(random.nextInt(pieces.size())));
      }
      String s = text.toString();
      assertEquals(byRegularExpression(s), DetectorTokens.tokens(s, INDEX), () -> "text: " + s);
    }
  }
}
