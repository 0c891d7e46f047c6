/// Where a user lives: the 47 prefectures, in the order of their JIS codes (北海道 1 … 沖縄県 47).
public enum Prefecture: String, Codable, CaseIterable, Sendable {
  case hokkaido, aomori, iwate, miyagi, akita, yamagata, fukushima
  case ibaraki, tochigi, gunma, saitama, chiba, tokyo, kanagawa
  case niigata, toyama, ishikawa, fukui, yamanashi, nagano, gifu, shizuoka, aichi
  case mie, shiga, kyoto, osaka, hyogo, nara, wakayama
  case tottori, shimane, okayama, hiroshima, yamaguchi, tokushima, kagawa, ehime, kochi
  case fukuoka, saga, nagasaki, kumamoto, oita, miyazaki, kagoshima, okinawa

  /// Its JIS X 0401 code, 1 to 47.
  public var code: Int { Self.allCases.firstIndex(of: self)! + 1 }

  /// Its name as written in addresses.
  public var title: String { Self.titles[code - 1] }

  public var region: Region {
    switch code {
    case 1...7: .hokkaidoTohoku
    case 8...14: .kanto
    case 15...23: .chubu
    case 24...30: .kinki
    case 31...39: .chugokuShikoku
    default: .kyushuOkinawa
    }
  }

  /// The groups of a prefecture menu.
  public enum Region: String, CaseIterable, Sendable {
    case hokkaidoTohoku, kanto, chubu, kinki, chugokuShikoku, kyushuOkinawa

    public var title: String {
      switch self {
      case .hokkaidoTohoku: "北海道・東北"
      case .kanto: "関東"
      case .chubu: "中部"
      case .kinki: "近畿"
      case .chugokuShikoku: "中国・四国"
      case .kyushuOkinawa: "九州・沖縄"
      }
    }

    public var prefectures: [Prefecture] { Prefecture.allCases.filter { $0.region == self } }
  }

  private static let titles = [
    "北海道", "青森県", "岩手県", "宮城県", "秋田県", "山形県", "福島県",
    "茨城県", "栃木県", "群馬県", "埼玉県", "千葉県", "東京都", "神奈川県",
    "新潟県", "富山県", "石川県", "福井県", "山梨県", "長野県", "岐阜県", "静岡県", "愛知県",
    "三重県", "滋賀県", "京都府", "大阪府", "兵庫県", "奈良県", "和歌山県",
    "鳥取県", "島根県", "岡山県", "広島県", "山口県", "徳島県", "香川県", "愛媛県", "高知県",
    "福岡県", "佐賀県", "長崎県", "熊本県", "大分県", "宮崎県", "鹿児島県", "沖縄県",
  ]
}
