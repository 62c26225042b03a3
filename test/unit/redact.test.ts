import { expect, test } from "bun:test";
import { MAX_ANSWER_CHARS, redactAnswer } from "../../src/alerts/redact.ts";

test("every URL and every run of 16 or more letters, digits, - or _ becomes …; shorter words stay", () => {
  expect(redactAnswer("HTTP 400: see https://fcm.googleapis.com/fcm/send/dXNlcl9pZA:APA91b and ftp://x.example/a")).toBe("HTTP 400: see … and …");
  expect(redactAnswer("token abcdefghijklmnop, not abcdefghijklmno")).toBe("token …, not abcdefghijklmno");
  expect(redactAnswer("ids AAAA_BBBB-CCCC_DDDD and 0123456789012345")).toBe("ids … and …");
});

test("control characters and runs of spaces become one space; the result is at most 200 characters, ending in … when cut", () => {
  expect(redactAnswer("line one\r\n\tline\u0000two   three")).toBe("line one line two three");
  const long = redactAnswer("word ".repeat(100));
  expect(long.length).toBe(MAX_ANSWER_CHARS);
  expect(long.endsWith("…")).toBe(true);
  expect(redactAnswer("short")).toBe("short");
});
