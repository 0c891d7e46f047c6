import CustomDump
import PointApp
import Testing

/// What the trace of changes (`LOG_LEVEL=trace`, a CustomDump of actions and state) never shows:
/// a password, a gift code in full.
struct TraceRedactionTests {
  @Test func aPasswordAndAGiftCodeDumpAsTheyShowNotAsTheyAre() {
    var dumped = ""
    customDump(SignInForm.Action.submitted(.register, email: "hanako@example.jp", password: "correct horse"), to: &dumped)
    #expect(dumped.contains("password: <secret>") && !dumped.contains("horse"))
    dumped = ""
    customDump(ExchangeRequest.Status.fulfilled(code: GiftCode("7K3M-Q9PZ-2HXD-W4RA"), at: noon), to: &dumped)
    #expect(dumped.contains("••••-••••-••••-W4RA") && !dumped.contains("7K3M"))
  }
}
