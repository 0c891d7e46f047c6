import Composable
import ConcurrencyExtras
import CustomDump
import PointApp
import Testing

/// What the trace of changes (`LOG_LEVEL=trace`, `ChangePrinter.dump`: the standard library's
/// dump of actions and state) never shows, nor a test's diff (CustomDump), nor a string a code is
/// interpolated into: a password, an operator's codes, a mailed link's token, a gift code in full.
struct TraceRedactionTests {
  @Test func aPasswordAndAGiftCodeDumpAsTheyShowNotAsTheyAre() {
    let signIn = SignInForm.Action.submitted(.register, email: "hanako@example.jp", password: "correct horse")
    let status = ExchangeRequest.Status.fulfilled(code: GiftCode("7K3M-Q9PZ-2HXD-W4RA"), at: noon)
    let written = LockIsolated<[String]>([])
    let printer = ChangePrinter<ExchangeRequest.Status?, SignInForm.Action>.dump { text in written.withValue { $0.append(text) } }
    printer.printChange(signIn, .none, status)
    let trace = written.value.joined()
    #expect(trace.contains("password: <secret>") && trace.contains("hanako@example.jp") && !trace.contains("horse"))
    #expect(trace.contains("code: ••••-••••-••••-W4RA") && !trace.contains("7K3M"))
    let console = LockIsolated<[String]>([])
    let revealed = OperatorFeature.Revealed.initialPassword(email: "jiro@example.jp", password: "first-pass-9Q")
    ChangePrinter<OperatorFeature.Revealed?, OperatorFeature.Action>.dump { text in console.withValue { $0.append(text) } }
      .printChange(.secondFactorSubmitted(code: "287082", next: nil), .recoveryCodes(["rc-1111-2222"]), revealed)
    let consoleTrace = console.value.joined()
    #expect(consoleTrace.contains("code: <secret>") && consoleTrace.contains("jiro@example.jp"))
    #expect(!consoleTrace.contains("287082") && !consoleTrace.contains("first-pass") && !consoleTrace.contains("rc-1111"), "\(consoleTrace)")
    // A mailed link's token (a reset opens the account) in an action, a destination, a message.
    let token = Secret(String(repeating: "9f", count: 32))
    let links = LockIsolated<[String]>([])
    ChangePrinter<[MailRequest], AppFeature.Action>.dump { text in links.withValue { $0.append(text) } }
      .printChange(.passwordResetPageRequested(token: token), [], [MailRequest(to: EmailAddress("hanako@example.jp")!, .passwordReset(token: token, requestedAt: noon, expires: noon))])
    ChangePrinter<AppFeature.Destination?, AppFeature.Action>.dump { text in links.withValue { $0.append(text) } }
      .printChange(.addressVerification(.confirmTapped(token: token)), nil, .verifyAddress(token: token))
    let linkTrace = links.value.joined()
    #expect(linkTrace.contains("token: <secret>") && linkTrace.contains("hanako@example.jp") && !linkTrace.contains("9f9f"), "\(linkTrace)")
    var dumped = ""
    customDump(signIn, to: &dumped)
    customDump(status, to: &dumped)
    #expect(dumped.contains("password: <secret>") && dumped.contains("hanako@example.jp") && !dumped.contains("horse"), "\(dumped)")
    #expect(dumped.contains("••••-••••-••••-W4RA") && !dumped.contains("7K3M"), "\(dumped)")
    // Interpolated (a log line, an error's text), a code is masked too: only `.value` is the code.
    let code = GiftCode("7K3M-Q9PZ-2HXD-W4RA")
    #expect("\(code)" == "••••-••••-••••-W4RA")
  }
}
