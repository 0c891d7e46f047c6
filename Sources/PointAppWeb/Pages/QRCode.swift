import Foundation

/// A QR code (ISO/IEC 18004) of some bytes, drawn by the server: byte mode, error correction
/// level M, the smallest version from 1 to 10 that holds them, the mask of least penalty. Enough
/// for an `otpauth://` URI, which an authenticator app reads from the second factor's enrolment
/// page. Written from the standard's procedure (encode, Reed–Solomon per block, interleave, place,
/// mask, format and version information).
struct QRCode {
  /// Modules by row, then column; `true` is dark.
  private(set) var modules: [[Bool]]
  let version: Int
  let mask: Int
  var size: Int { modules.count }

  /// Error correction blocks of level M by version: (error correction codewords per block, data
  /// codewords of each block).
  private static let blocks: [Int: (ec: Int, data: [Int])] = [
    1: (10, [16]), 2: (16, [28]), 3: (26, [44]), 4: (18, [32, 32]), 5: (24, [43, 43]),
    6: (16, [27, 27, 27, 27]), 7: (18, [31, 31, 31, 31]), 8: (22, [38, 38, 39, 39]),
    9: (22, [36, 36, 36, 37, 37]), 10: (26, [43, 43, 43, 43, 44]),
  ]

  private static let alignment: [Int: [Int]] = [
    2: [6, 18], 3: [6, 22], 4: [6, 26], 5: [6, 30], 6: [6, 34], 7: [6, 22, 38], 8: [6, 24, 42], 9: [6, 26, 46], 10: [6, 28, 50],
  ]

  /// `nil` when `data` is longer than version 10 holds (213 bytes). `mask`: a fixed mask (for
  /// comparing with another encoder), else the one of least penalty.
  init?(_ data: Data, mask fixedMask: Int? = nil) {
    guard let version = (1...10).first(where: { Self.capacity($0) >= data.count }) else { return nil }
    self.version = version
    let size = version * 4 + 17
    var builder = Builder(size: size)
    builder.drawFunctionPatterns(version: version)
    builder.drawCodewords(Self.codewords(data, version: version))
    let chosen = fixedMask ?? (0..<8).min { builder.masked($0).penalty() < builder.masked($1).penalty() }!
    let final = builder.masked(chosen)
    mask = chosen
    modules = final.modules
  }

  /// How many bytes a version holds in byte mode at level M.
  private static func capacity(_ version: Int) -> Int {
    let bits = blocks[version]!.data.reduce(0, +) * 8 - 4 - (version < 10 ? 8 : 16)
    return bits / 8
  }

  /// The data codewords (mode, count, bytes, terminator, padding), each block's Reed–Solomon
  /// codewords, interleaved as the standard places them.
  private static func codewords(_ data: Data, version: Int) -> [UInt8] {
    let (ecLength, dataLengths) = blocks[version]!
    let capacity = dataLengths.reduce(0, +)
    var bits: [Bool] = []
    func append(_ value: Int, _ count: Int) {
      for shift in stride(from: count - 1, through: 0, by: -1) { bits.append((value >> shift) & 1 == 1) }
    }
    append(0b0100, 4)
    append(data.count, version < 10 ? 8 : 16)
    for byte in data { append(Int(byte), 8) }
    append(0, min(4, capacity * 8 - bits.count))
    append(0, (8 - bits.count % 8) % 8)
    var bytes = stride(from: 0, to: bits.count, by: 8).map { start in
      bits[start..<start + 8].reduce(UInt8(0)) { ($0 << 1) | ($1 ? 1 : 0) }
    }
    for pad in 0..<(capacity - bytes.count) { bytes.append(pad.isMultiple(of: 2) ? 0xEC : 0x11) }

    let divisor = ReedSolomon.divisor(degree: ecLength)
    var offset = 0
    var dataBlocks: [[UInt8]] = []
    var ecBlocks: [[UInt8]] = []
    for length in dataLengths {
      let block = Array(bytes[offset..<offset + length])
      offset += length
      dataBlocks.append(block)
      ecBlocks.append(ReedSolomon.remainder(block, divisor))
    }
    var result: [UInt8] = []
    for index in 0..<dataLengths.max()! {
      for block in dataBlocks where index < block.count { result.append(block[index]) }
    }
    for index in 0..<ecLength {
      for block in ecBlocks { result.append(block[index]) }
    }
    return result
  }

  /// The code as an SVG image: a quiet zone of four modules, one path of dark squares.
  func svg() -> String {
    let side = size + 8
    var path = ""
    for (row, line) in modules.enumerated() {
      for (column, dark) in line.enumerated() where dark {
        path += "M\(column + 4) \(row + 4)h1v1h-1z"
      }
    }
    return #"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \#(side) \#(side)" shape-rendering="crispEdges">"#
      + ##"<rect width="\##(side)" height="\##(side)" fill="#fff"/><path fill="#000" d="\##(path)"/></svg>"##
  }

  /// The SVG as a `data:` URL, for an `<img>` (the pages' Content-Security-Policy allows images from
  /// `data:`, and no inline markup).
  func dataURL() -> String {
    "data:image/svg+xml;base64," + Data(svg().utf8).base64EncodedString()
  }

  /// The modules being placed, with which of them are function patterns (never masked).
  private struct Builder {
    var modules: [[Bool]]
    var isFunction: [[Bool]]
    let size: Int

    init(size: Int) {
      self.size = size
      modules = Array(repeating: Array(repeating: false, count: size), count: size)
      isFunction = modules
    }

    mutating func set(_ x: Int, _ y: Int, _ dark: Bool) {
      modules[y][x] = dark
      isFunction[y][x] = true
    }

    mutating func drawFunctionPatterns(version: Int) {
      for index in 0..<size {
        set(6, index, index.isMultiple(of: 2))
        set(index, 6, index.isMultiple(of: 2))
      }
      for (x, y) in [(3, 3), (size - 4, 3), (3, size - 4)] {
        for dy in -4...4 {
          for dx in -4...4 where (0..<size).contains(x + dx) && (0..<size).contains(y + dy) {
            let distance = max(abs(dx), abs(dy))
            set(x + dx, y + dy, distance != 2 && distance != 4)
          }
        }
      }
      let positions = QRCode.alignment[version] ?? []
      for (i, x) in positions.enumerated() {
        for (j, y) in positions.enumerated() {
          // Not over the three finder patterns.
          if (i == 0 && j == 0) || (i == 0 && j == positions.count - 1) || (i == positions.count - 1 && j == 0) { continue }
          for dy in -2...2 {
            for dx in -2...2 { set(x + dx, y + dy, max(abs(dx), abs(dy)) != 1) }
          }
        }
      }
      drawFormat(mask: 0)  // reserved now, drawn with the mask chosen
      if version >= 7 {
        var remainder = version
        for _ in 0..<12 { remainder = (remainder << 1) ^ ((remainder >> 11) * 0x1F25) }
        let bits = version << 12 | remainder
        for index in 0..<18 {
          let dark = (bits >> index) & 1 == 1
          let (a, b) = (size - 11 + index % 3, index / 3)
          set(a, b, dark)
          set(b, a, dark)
        }
      }
    }

    /// Level M's format bits with `mask`, in both copies, and the module that is always dark.
    mutating func drawFormat(mask: Int) {
      let data = 0b00 << 3 | mask  // level M is 00
      var remainder = data
      for _ in 0..<10 { remainder = (remainder << 1) ^ ((remainder >> 9) * 0x537) }
      let bits = (data << 10 | remainder) ^ 0x5412
      func bit(_ index: Int) -> Bool { (bits >> index) & 1 == 1 }
      for index in 0...5 { set(8, index, bit(index)) }
      set(8, 7, bit(6))
      set(8, 8, bit(7))
      set(7, 8, bit(8))
      for index in 9..<15 { set(14 - index, 8, bit(index)) }
      for index in 0..<8 { set(size - 1 - index, 8, bit(index)) }
      for index in 8..<15 { set(8, size - 15 + index, bit(index)) }
      set(8, size - 8, true)
    }

    /// The codewords' bits in the standard's zigzag, two columns at a time from the right.
    mutating func drawCodewords(_ codewords: [UInt8]) {
      var index = 0
      var right = size - 1
      while right >= 1 {
        if right == 6 { right = 5 }
        for vertical in 0..<size {
          for column in 0..<2 {
            let x = right - column
            let upward = (right + 1) & 2 == 0
            let y = upward ? size - 1 - vertical : vertical
            if !isFunction[y][x] && index < codewords.count * 8 {
              modules[y][x] = (codewords[index >> 3] >> (7 - (index & 7))) & 1 == 1
              index += 1
            }
          }
        }
        right -= 2
      }
    }

    func masked(_ mask: Int) -> Builder {
      var copy = self
      for y in 0..<size {
        for x in 0..<size where !isFunction[y][x] {
          let invert =
            switch mask {
            case 0: (x + y) % 2 == 0
            case 1: y % 2 == 0
            case 2: x % 3 == 0
            case 3: (x + y) % 3 == 0
            case 4: (x / 3 + y / 2) % 2 == 0
            case 5: x * y % 2 + x * y % 3 == 0
            case 6: (x * y % 2 + x * y % 3) % 2 == 0
            default: ((x + y) % 2 + x * y % 3) % 2 == 0
            }
          if invert { copy.modules[y][x].toggle() }
        }
      }
      copy.drawFormat(mask: mask)
      return copy
    }

    /// The standard's four penalties: runs of five or more, 2×2 blocks, finder-like patterns, and
    /// the balance of dark and light.
    func penalty() -> Int {
      var total = 0
      let columns = (0..<size).map { x in (0..<size).map { y in modules[y][x] } }
      for line in modules + columns {
        var run = 1
        for index in 1..<size {
          if line[index] == line[index - 1] {
            run += 1
          } else {
            if run >= 5 { total += 3 + run - 5 }
            run = 1
          }
        }
        if run >= 5 { total += 3 + run - 5 }
        let pattern: [Bool] = [true, false, true, true, true, false, true]
        let light = [Bool](repeating: false, count: 4)
        for start in 0...(size - 11) {
          let window = Array(line[start..<start + 11])
          if window == pattern + light || window == light + pattern { total += 40 }
        }
      }
      for y in 0..<(size - 1) {
        for x in 0..<(size - 1) {
          let color = modules[y][x]
          if modules[y][x + 1] == color && modules[y + 1][x] == color && modules[y + 1][x + 1] == color { total += 3 }
        }
      }
      let dark = modules.reduce(0) { $0 + $1.filter { $0 }.count }
      let all = size * size
      total += ((abs(dark * 20 - all * 10) + all - 1) / all - 1) * 10
      return total
    }
  }
}

/// Reed–Solomon error correction over GF(256) with the QR code's polynomial, x⁸ + x⁴ + x³ + x² + 1.
enum ReedSolomon {
  static func multiply(_ x: UInt8, _ y: UInt8) -> UInt8 {
    var z = 0
    for index in stride(from: 7, through: 0, by: -1) {
      z = (z << 1) ^ ((z >> 7) * 0x11D)
      z ^= ((Int(y) >> index) & 1) * Int(x)
    }
    return UInt8(z)
  }

  /// The generator polynomial of `degree`, highest power first, its leading 1 left out.
  static func divisor(degree: Int) -> [UInt8] {
    var result = [UInt8](repeating: 0, count: degree)
    result[degree - 1] = 1
    var root: UInt8 = 1
    for _ in 0..<degree {
      for index in 0..<degree {
        result[index] = multiply(result[index], root)
        if index + 1 < degree { result[index] ^= result[index + 1] }
      }
      root = multiply(root, 0x02)
    }
    return result
  }

  /// The remainder of `data` divided by `divisor`: the block's error correction codewords.
  static func remainder(_ data: [UInt8], _ divisor: [UInt8]) -> [UInt8] {
    var result = [UInt8](repeating: 0, count: divisor.count)
    for byte in data {
      let factor = byte ^ result[0]
      result.removeFirst()
      result.append(0)
      for index in 0..<result.count { result[index] ^= multiply(divisor[index], factor) }
    }
    return result
  }
}
