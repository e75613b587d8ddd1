package io.cdclake.spark;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import javax.security.sasl.AuthenticationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The password check of cdc-lake serve, on hashes that python/cdc_lake/serve.py's password_hash
 * wrote: {@code password_hash('s3cret é', salt=b'0123456789abcdef', iterations=1000)}.
 */
class ServePasswordAuthenticatorTest {

  private static final String PASSWORD = "s3cret é";
  private static final String HASH =
      "pbkdf2_sha256$1000$MDEyMzQ1Njc4OWFiY2RlZg==$UiNGXa30Op4A3ofJ64XDUWnUYsM/xOd2RJb2SEW7qmA=";

  /** The string HiveServer2's PlainSaslServer makes of a UTF-8 password: each byte cast to char. */
  private static String asSaslPlain(String password) {
    StringBuilder received = new StringBuilder();
    for (byte b : password.getBytes(StandardCharsets.UTF_8)) {
      received.append((char) b);
    }
    return received.toString();
  }

  @Test
  void acceptsTheRightPassword() {
    assertTrue(ServePasswordAuthenticator.matches(HASH, PASSWORD));
    assertTrue(ServePasswordAuthenticator.matches(
        "pbkdf2_sha256$1$c2FsdA==$mf2Nwi7lNl0wGAk8dwMtXJCbBfOomtPiYJ5w6XcT2us=", "x"));
    assertDoesNotThrow(
        () -> new ServePasswordAuthenticator(HASH).Authenticate("anyone", asSaslPlain(PASSWORD)));
  }

  @Test
  void refusesAWrongPassword() {
    assertFalse(ServePasswordAuthenticator.matches(HASH, "s3cret e"));
    assertFalse(ServePasswordAuthenticator.matches(HASH, PASSWORD + " "));
    assertFalse(ServePasswordAuthenticator.matches(HASH, ""));
    assertFalse(ServePasswordAuthenticator.matches(HASH, null));
    ServePasswordAuthenticator authenticator = new ServePasswordAuthenticator(HASH);
    assertThrows(AuthenticationException.class,
        () -> authenticator.Authenticate("cdc_lake", asSaslPlain("s3cret")));
    // the password as chars, not as PlainSaslServer's bytes: é is then another password
    assertThrows(AuthenticationException.class,
        () -> authenticator.Authenticate("cdc_lake", asSaslPlain("s3cret ").concat("\u00C3\u00A9")));
  }

  @ParameterizedTest
  @NullAndEmptySource
  @ValueSource(strings = {
    "pbkdf2_sha1$1000$MDEyMzQ1Njc4OWFiY2RlZg==$UiNGXa30Op4A3ofJ64XDUWnUYsM/xOd2RJb2SEW7qmA=",
    "pbkdf2_sha256$1000$MDEyMzQ1Njc4OWFiY2RlZg==",
    "pbkdf2_sha256$1000$MDEyMzQ1Njc4OWFiY2RlZg==$UiNGXa30Op4A3ofJ64XDUWnUYsM/xOd2RJb2SEW7qmA=$",
    "pbkdf2_sha256$many$MDEyMzQ1Njc4OWFiY2RlZg==$UiNGXa30Op4A3ofJ64XDUWnUYsM/xOd2RJb2SEW7qmA=",
    "pbkdf2_sha256$0$MDEyMzQ1Njc4OWFiY2RlZg==$UiNGXa30Op4A3ofJ64XDUWnUYsM/xOd2RJb2SEW7qmA=",
    "pbkdf2_sha256$-1$MDEyMzQ1Njc4OWFiY2RlZg==$UiNGXa30Op4A3ofJ64XDUWnUYsM/xOd2RJb2SEW7qmA=",
    "pbkdf2_sha256$1000$$UiNGXa30Op4A3ofJ64XDUWnUYsM/xOd2RJb2SEW7qmA=",
    "pbkdf2_sha256$1000$MDEyMzQ1Njc4OWFiY2RlZg==$",
    "pbkdf2_sha256$1000$not base64!$UiNGXa30Op4A3ofJ64XDUWnUYsM/xOd2RJb2SEW7qmA=",
    "pbkdf2_sha256$1000$MDEyMzQ1Njc4OWFiY2RlZg==$UiNGXa30Op4A3ofJ64XDUWnUYsM/xOd2RJb2SEW7q",
    "PBKDF2_SHA256$1000$MDEyMzQ1Njc4OWFiY2RlZg==$UiNGXa30Op4A3ofJ64XDUWnUYsM/xOd2RJb2SEW7qmA="
  })
  void refusesEveryPasswordWithoutAWellFormedHash(String malformed) {
    assertFalse(ServePasswordAuthenticator.matches(malformed, PASSWORD));
    assertThrows(AuthenticationException.class,
        () -> new ServePasswordAuthenticator(malformed).Authenticate("cdc_lake", asSaslPlain(PASSWORD)));
  }

  @Test
  void readsPlainSaslServersBytesBackAsUtf8() {
    assertEquals(PASSWORD, ServePasswordAuthenticator.fromSaslPlain(asSaslPlain(PASSWORD)));
    assertEquals("plain", ServePasswordAuthenticator.fromSaslPlain("plain"));
    // a string that is not bytes cast to chars is returned as it is
    assertEquals("é", ServePasswordAuthenticator.fromSaslPlain("é"));
    // bytes that are not UTF-8 (a lone continuation byte) give no password
    assertNull(ServePasswordAuthenticator.fromSaslPlain("a" + (char) (byte) 0x80));
    assertNull(ServePasswordAuthenticator.fromSaslPlain(null));
  }
}
