package io.cdclake.spark;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Base64;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;
import javax.security.sasl.AuthenticationException;
import org.apache.hive.service.auth.PasswdAuthenticationProvider;

/**
 * The password check of {@code cdc-lake serve --password-file} (HiveServer2's
 * {@code hive.server2.authentication=CUSTOM}): a connection is accepted when its password derives
 * the same PBKDF2-HMAC-SHA256 hash as the one {@code cdc-lake serve} computed from the secret.
 *
 * <p>The expected hash comes from the server's environment variable
 * {@code CDC_LAKE_SERVE_PASSWORD_HASH}, {@code pbkdf2_sha256$<iterations>$<salt>$<hash>} (salt and
 * hash in base64), written by python/cdc_lake/serve.py's {@code password_hash}; the plaintext
 * never reaches the server. The hashes are compared in constant time. The user name is not
 * checked (any name; it names the session). Without a well-formed hash every connection is
 * refused.
 */
public final class ServePasswordAuthenticator implements PasswdAuthenticationProvider {

  public static final String HASH_VARIABLE = "CDC_LAKE_SERVE_PASSWORD_HASH";
  private static final String SCHEME = "pbkdf2_sha256";

  private final String expected;

  public ServePasswordAuthenticator() {
    this(System.getenv(HASH_VARIABLE));
  }

  ServePasswordAuthenticator(String expected) {
    this.expected = expected;
  }

  @Override
  public void Authenticate(String user, String password) throws AuthenticationException {
    if (!matches(expected, fromSaslPlain(password))) {
      throw new AuthenticationException("cdc-lake serve: wrong password");
    }
  }

  /**
   * The password a client sent, from the string HiveServer2's PlainSaslServer makes of it: that
   * server casts each byte of the UTF-8 message to a char ({@code (char) b}, sign-extended), so
   * the byte 0xC3 arrives as U+FFC3. Such a string (chars below U+0080 or from U+FF80) is turned
   * back into its bytes and decoded as UTF-8; any other string is returned as it is. Null when
   * the bytes are not UTF-8.
   */
  public static String fromSaslPlain(String received) {
    if (received == null) {
      return null;
    }
    byte[] bytes = new byte[received.length()];
    for (int i = 0; i < received.length(); i++) {
      char c = received.charAt(i);
      if (c >= 0x80 && c < 0xFF80) {
        return received;
      }
      bytes[i] = (byte) c;
    }
    try {
      return StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes))
          .toString();
    } catch (CharacterCodingException e) {
      return null;
    }
  }

  /** Whether {@code password} derives the hash of {@code encoded} (false if either is malformed). */
  public static boolean matches(String encoded, String password) {
    if (encoded == null || password == null || password.isEmpty()) {
      return false;
    }
    String[] parts = encoded.split("\\$", -1);
    if (parts.length != 4 || !parts[0].equals(SCHEME)) {
      return false;
    }
    try {
      int iterations = Integer.parseInt(parts[1]);
      byte[] salt = Base64.getDecoder().decode(parts[2]);
      byte[] hash = Base64.getDecoder().decode(parts[3]);
      if (iterations < 1 || salt.length == 0 || hash.length == 0) {
        return false;
      }
      byte[] derived = derive(password, salt, iterations, hash.length);
      return MessageDigest.isEqual(derived, hash); // constant time for equal lengths
    } catch (IllegalArgumentException | GeneralSecurityException e) {
      return false;
    }
  }

  private static byte[] derive(String password, byte[] salt, int iterations, int bytes)
      throws GeneralSecurityException {
    // PBEKeySpec takes chars and PBKDF2WithHmacSHA256 encodes them as UTF-8, as Python's
    // hashlib.pbkdf2_hmac('sha256', password.encode('utf-8'), ...) does.
    PBEKeySpec spec = new PBEKeySpec(password.toCharArray(), salt, iterations, bytes * 8);
    try {
      return SecretKeyFactory.getInstance("PBKDF2WithHmacSHA256").generateSecret(spec).getEncoded();
    } finally {
      spec.clearPassword();
    }
  }

  /**
   * {@code java ... ServePasswordAuthenticator <encoded>} (for tests): reads a UTF-8 password line
   * from stdin, turns its bytes into a string as HiveServer2's PlainSaslServer does, and exits 0
   * if {@link #Authenticate} accepts it, 1 if not.
   */
  public static void main(String[] args) throws java.io.IOException {
    byte[] line = System.in.readAllBytes();
    int end = line.length;
    while (end > 0 && (line[end - 1] == '\n' || line[end - 1] == '\r')) {
      end--;
    }
    StringBuilder received = new StringBuilder();
    for (int i = 0; i < end; i++) {
      received.append((char) line[i]);
    }
    try {
      new ServePasswordAuthenticator(args[0]).Authenticate("cdc_lake", received.toString());
      System.exit(0);
    } catch (AuthenticationException e) {
      System.exit(1);
    }
  }
}
