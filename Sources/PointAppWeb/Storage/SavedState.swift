import Foundation
import PointApp

/// A user's state file: their data only (progress, flash, a refused draft, a refused form's address) with the schema version it was
/// written in; pages and catalog data are never saved.
public enum SavedState {
  /// The version this code writes. Version 5 adds the mail the member stopped and the
  /// invitations and warnings sent (`notices`): a version-4 program would drop them, and mail a
  /// member who asked for none. Version 4 adds the ledger's lots (expiry and rank) and the
  /// ledger reasons that come with them (expiry, rank bonus, exchange requests, the support
  /// desk's adjustments), which version 3 cannot read. Version 3 adds the profile and its bonus (a ledger reason
  /// version 2 cannot read, hence the new number: a version-2 program refuses the file rather
  /// than drop them); version 2 keeps the ledger bounded (running totals, newest movements, an
  /// archive) and counts answers; version 1 kept every movement and answer in the user's file.
  public static let schemaVersion = 5

  /// The bytes of a user's file: those `SavedJSON.encode(File(state))` gives, written faster.
  public static func data(for state: AppFeature.State) -> Data {
    SavedJSONWriter.data(for: state)
  }

  /// Reads a user's file of this or an older schema version into a state that has nothing else.
  public static func state(from data: Data) throws -> AppFeature.State {
    try SavedJSON.decode(File.self, from: data).state
  }

  /// What of `state` is saved: the user's data (progress, flash, draft), none of the page's, as
  /// `File` alone says; for the request loop (did anything to save change?).
  public static func userData(of state: AppFeature.State) -> AppFeature.State {
    File(state).state
  }

  /// The file as `Codable` reads it; `SavedJSONWriter` writes the bytes `JSONEncoder` gives for it.
  struct File: Codable {
    var schemaVersion = SavedState.schemaVersion
    var progress: UserProgress
    var flash: Flash?
    /// Absent in files written before drafts were kept; older programs of this version skip it.
    var draft: SurveyDraft?
    var enteredEmail: String?
    var profileDraft: ProfileDraft?

    private enum CodingKeys: String, CodingKey {
      case schemaVersion, progress, flash, draft, enteredEmail, profileDraft
    }

    init(_ state: AppFeature.State) {
      progress = state.progress
      flash = state.flash
      draft = state.draft
      enteredEmail = state.enteredEmail
      profileDraft = state.profileDraft
    }

    /// A state that has this file's data and nothing else.
    var state: AppFeature.State {
      var state = AppFeature.State()
      (state.progress, state.flash, state.draft, state.enteredEmail) = (progress, flash, draft, enteredEmail)
      state.profileDraft = profileDraft
      return state
    }

    /// Migrations go here: read the version, then decode that version's shape and convert it.
    /// Version 1's ledger and answer count are read by `PointLedger` and `UserProgress`, which fold
    /// its movements into totals; its history is archived at its next save. A file from a newer
    /// version is refused rather than misread (and later overwritten).
    init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: CodingKeys.self)
      schemaVersion = try container.decode(Int.self, forKey: .schemaVersion)
      guard (1...SavedState.schemaVersion).contains(schemaVersion) else {
        throw DecodingError.dataCorruptedError(
          forKey: .schemaVersion, in: container,
          debugDescription: "schema version \(schemaVersion) is not one this program reads (1...\(SavedState.schemaVersion))"
        )
      }
      progress = try container.decode(UserProgress.self, forKey: .progress)
      flash = try container.decodeIfPresent(Flash.self, forKey: .flash)
      draft = try container.decodeIfPresent(SurveyDraft.self, forKey: .draft)
      enteredEmail = try container.decodeIfPresent(String.self, forKey: .enteredEmail)
      profileDraft = try container.decodeIfPresent(ProfileDraft.self, forKey: .profileDraft)
    }
  }
}

/// How records are coded (users' states and archives, responses, counts, the other kinds of the
/// record layer): JSON with sorted keys and ISO 8601 dates (second precision), so that the same
/// value always gives the same bytes; gift codes sealed with the process's `CodeKeys`.
package enum SavedJSON {
  /// `value`'s `Codable` form as JSON. The records every answer writes come from
  /// `SavedJSONWriter` (`WrittenByHand`): the same bytes, faster.
  package static func encode(_ value: some Encodable) throws -> Data {
    if let written = value as? any WrittenByHand { return written.savedJSON }
    return try encodeByCodable(value)
  }

  /// What `JSONEncoder` gives: the bytes `SavedJSONWriter` is held to.
  package static func encodeByCodable(_ value: some Encodable) throws -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    encoder.dateEncodingStrategy = .iso8601
    encoder.userInfo[.giftCodeSealing] = CodeKeys.current
    return try encoder.encode(value)
  }

  static func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value {
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .iso8601
    decoder.userInfo[.giftCodeSealing] = CodeKeys.current
    return try decoder.decode(type, from: data)
  }
}

/// A record `SavedJSONWriter` writes: `SavedJSON.encode` takes its bytes from there.
protocol WrittenByHand {
  var savedJSON: Data { get }
}

extension SurveyResponse: WrittenByHand {
  var savedJSON: Data { SavedJSONWriter.data(for: self) }
}

extension ResponseStore.StoredCounts: WrittenByHand {
  var savedJSON: Data { SavedJSONWriter.data(for: self) }
}
