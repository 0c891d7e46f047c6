import Hummingbird
import PointAppWeb
import Testing

/// How a form body is read: names and values decoded, order and repeats kept, anything malformed
/// a 400.
struct FormBodyTests {
  @Test func decodesPlusesEscapesAndRepeatedNames() throws {
    let form = try FormBody(parsing: "csrf=ab12&q%5Bfoods%5D=rice&q%5Bfoods%5D=bread&text=%E3%81%82+b%2Bc%25&empty=&&flag")
    #expect(form.fields.map(\.name) == ["csrf", "q[foods]", "q[foods]", "text", "empty", "flag"])
    #expect(form.fields.map(\.value) == ["ab12", "rice", "bread", "あ b+c%", "", ""])
    #expect(try form.value("text") == "あ b+c%")
    #expect(throws: HTTPError.self) { try form.value("q[foods]") }
  }

  @Test(arguments: ["a=%", "a=%4", "a=%G1", "a=%E3%81", "a=%FF", "%zz=1", "=value"])
  func aMalformedFieldIsA400(body: String) {
    #expect(throws: HTTPError.self) { try FormBody(parsing: body) }
  }
}
