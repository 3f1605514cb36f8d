//! What every service accepts as an identifier, a rule set name or a display name: one policy,
//! one limit and one message per problem, so a name the gateway takes at sign-in is never
//! refused further in (and a name an internal caller sends is held to the same rules).
//!
//! Each service maps [`IdError`] to its own error type in one line; its message already names
//! the field and the problem (`game_id: only letters, digits, '-' and '_' are allowed`), and it
//! becomes `INVALID_ARGUMENT` through `From<IdError> for tonic::Status`.

use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;

/// Longest id (player, game, ticket, action): ULIDs are 26 characters, so 64 leaves room
/// for ids chosen by other systems without letting a key grow unbounded.
pub const MAX_ID_LEN: usize = 64;
/// Longest rule set (rating pool, quick-match queue) name, e.g.
/// `quoridor/9/classic/ffa4/walls20`.
pub const MAX_RULESET_LEN: usize = 100;
/// Longest display name, in Unicode scalar values: what clients have been told at sign-in
/// (`SignInGuestRequest.display_name`), and what fits a seat label in the terminal client.
pub const MAX_DISPLAY_NAME_CHARS: usize = 32;

/// Why an id or a name was refused. Each message starts with the field it is about.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum IdError {
    /// An id is empty or longer than [`MAX_ID_LEN`].
    #[error("{field}: must be 1 to {MAX_ID_LEN} characters")]
    IdLength { field: String },
    /// An id holds something other than `[A-Za-z0-9_-]`.
    #[error("{field}: only letters, digits, '-' and '_' are allowed")]
    IdCharacters { field: String },
    /// A rule set name is empty, too long or not `[a-z0-9/_-]`.
    #[error(
        "{field}: 1 to {MAX_RULESET_LEN} of lowercase letters, digits, '/', '-' and '_' \
         (a rating pool such as caro/15/blocked-ends)"
    )]
    Ruleset { field: String },
    /// A display name is empty or longer than [`MAX_DISPLAY_NAME_CHARS`].
    #[error("{field}: must be 1 to {MAX_DISPLAY_NAME_CHARS} characters")]
    NameLength { field: String },
    /// A display name starts or ends with whitespace (sign-in trims what a person typed; an
    /// internal caller passes the name as it was issued).
    #[error("{field}: must not start or end with whitespace")]
    NameUntrimmed { field: String },
    /// A display name holds a character that is invisible or changes how the text around it
    /// is shown, so two different names could look the same (or a name could reverse the
    /// text after it).
    #[error(
        "{field}: U+{code:04X} is not allowed (control, bidi, zero-width, invisible and \
         line-breaking characters are refused)",
        code = u32::from(*found)
    )]
    NameCharacter { field: String, found: char },
    /// More than [`MAX_COMBINING_MARKS`] combining marks on one character ("Zalgo" text that
    /// spills over the lines around it in lists and chat).
    #[error("{field}: at most {MAX_COMBINING_MARKS} combining marks on one character")]
    NameMarks { field: String },
    /// A combining mark with no character before it to carry it (at the start, or after a
    /// space): it draws over whatever the name is shown next to.
    #[error("{field}: a combining mark must follow the character it marks")]
    NameLoneMark { field: String },
}

impl IdError {
    /// The stable reason a client reads from the refusal's `ErrorInfo`.
    pub fn reason(&self) -> &'static str {
        use crate::error_details::reason;
        match self {
            IdError::IdLength { .. } | IdError::IdCharacters { .. } => reason::INVALID_ID,
            IdError::Ruleset { .. } => reason::INVALID_RULESET,
            IdError::NameLength { .. }
            | IdError::NameUntrimmed { .. }
            | IdError::NameCharacter { .. }
            | IdError::NameMarks { .. }
            | IdError::NameLoneMark { .. } => reason::INVALID_DISPLAY_NAME,
        }
    }
}

/// INVALID_ARGUMENT with the message, an `ErrorInfo` (domain `ludus.gateway`, the reason) and
/// a `BadRequest` naming the field: the gateway is where ids and names meet a client.
#[cfg(feature = "grpc")]
impl From<IdError> for tonic::Status {
    fn from(error: IdError) -> Self {
        let reason = error.reason();
        crate::error_details::invalid_argument(
            error.to_string(),
            crate::error_details::DOMAIN_GATEWAY,
            reason,
        )
    }
}

/// Checks an id a caller sends (player, game, ticket, action): 1 to [`MAX_ID_LEN`] of
/// `[A-Za-z0-9_-]`, so it is safe inside a store key and a log line.
pub fn validate_id(field: &str, id: &str) -> Result<(), IdError> {
    if id.is_empty() || id.len() > MAX_ID_LEN {
        return Err(IdError::IdLength {
            field: field.to_owned(),
        });
    }
    if !id
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    {
        return Err(IdError::IdCharacters {
            field: field.to_owned(),
        });
    }
    Ok(())
}

/// Checks a rule set name (a rating pool or a queue): 1 to [`MAX_RULESET_LEN`] of
/// `[a-z0-9/_-]`.
pub fn validate_ruleset(field: &str, ruleset: &str) -> Result<(), IdError> {
    let allowed = |b: u8| b.is_ascii_lowercase() || b.is_ascii_digit() || b"/_-".contains(&b);
    if ruleset.is_empty() || ruleset.len() > MAX_RULESET_LEN || !ruleset.bytes().all(allowed) {
        return Err(IdError::Ruleset {
            field: field.to_owned(),
        });
    }
    Ok(())
}

/// Checks a display name as it is stored and shown (see [`normalize_display_name`]): 1 to [`MAX_DISPLAY_NAME_CHARS`]
/// characters, no whitespace at either end, no character for which [`is_refused_in_name`]
/// holds. Sign-in trims what a person typed before calling this; every other service checks
/// the name it is handed as is.
pub fn validate_display_name(field: &str, name: &str) -> Result<(), IdError> {
    let count = name.chars().count();
    if count == 0 || count > MAX_DISPLAY_NAME_CHARS {
        return Err(IdError::NameLength {
            field: field.to_owned(),
        });
    }
    if name.trim() != name {
        return Err(IdError::NameUntrimmed {
            field: field.to_owned(),
        });
    }
    if let Some(found) = name.chars().find(|&c| is_refused_in_name(c)) {
        return Err(IdError::NameCharacter {
            field: field.to_owned(),
            found,
        });
    }
    check_combining_marks(name).map_err(|problem| match problem {
        MarkProblem::Stacked => IdError::NameMarks {
            field: field.to_owned(),
        },
        MarkProblem::Lone => IdError::NameLoneMark {
            field: field.to_owned(),
        },
    })
}

/// What is wrong with a text's combining marks ([`check_combining_marks`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MarkProblem {
    /// More than [`MAX_COMBINING_MARKS`] on one character.
    Stacked,
    /// A mark at the start or after a space: nothing of the text's own carries it.
    Lone,
}

/// Whether every combining mark of `text` sits on a character of its own (not at the start,
/// not after a space) and no character carries more than [`MAX_COMBINING_MARKS`]: the one
/// rule for names and chat lines, so neither can draw over the text around it.
pub fn check_combining_marks(text: &str) -> Result<(), MarkProblem> {
    let mut marks = 0;
    let mut carrier = false;
    for c in text.chars() {
        if is_combining_mark(c) {
            if !carrier {
                return Err(MarkProblem::Lone);
            }
            marks += 1;
            if marks > MAX_COMBINING_MARKS {
                return Err(MarkProblem::Stacked);
            }
        } else {
            marks = 0;
            carrier = !c.is_whitespace();
        }
    }
    Ok(())
}

/// The most combining marks one character of a display name may carry once composed (NFC):
/// Vietnamese needs two on one vowel at most where no precomposed letter exists (`ệ` is
/// one code point in NFC anyway); a stack of dozens draws over the neighbouring lines.
pub const MAX_COMBINING_MARKS: usize = 2;

/// The name a person typed, as it is stored: trimmed and in Unicode normalisation form C, so
/// the same name typed on two keyboards (precomposed `ễ` or `e` + marks) is one name.
pub fn normalize_display_name(typed: &str) -> String {
    typed.trim().nfc().collect()
}

/// Characters a display name may not hold: they are invisible or change how the text around
/// them is laid out, so they let one name impersonate another or scramble the line it is
/// shown in.
///
/// - control characters (`Cc`: newlines, tabs, escape sequences for a terminal);
/// - whitespace other than the plain space (no-break and ideographic spaces look like a space
///   but are not one; line and paragraph separators break the line);
/// - format characters (`Cf`): bidi embeddings, overrides, isolates and marks (the
///   "Trojan Source" characters), zero-width space, joiners and non-joiners, word joiner and
///   invisible operators, the byte order mark, soft hyphen, interlinear annotation marks and
///   language tags. Joiners also build emoji sequences (a family emoji); those are refused too:
///   a name that can hide a joiner can hide it anywhere;
/// - blank letters that render as nothing (Hangul fillers, the blank Braille pattern), a known
///   way to pick an "invisible" name;
/// - the combining grapheme joiner (U+034F: a mark that draws nothing, so two names that
///   look the same differ by it);
/// - noncharacters (U+FDD0..U+FDEF and the last two code points of every plane, U+FFFE and
///   U+FFFF among them): reserved for a program's own use, never text to show.
///
/// The `Cf` list is Unicode 15.1's, written out rather than pulled from a property-table
/// crate: it changes rarely and the whole policy stays in one screen.
pub fn is_refused_in_name(c: char) -> bool {
    if c.is_control() || (c.is_whitespace() && c != ' ') || is_noncharacter(c) {
        return true;
    }
    matches!(
        c,
        // format characters (general category Cf)
        '\u{00AD}'
            | '\u{0600}'..='\u{0605}'
            | '\u{061C}'
            | '\u{06DD}'
            | '\u{070F}'
            | '\u{0890}'..='\u{0891}'
            | '\u{08E2}'
            | '\u{180E}'
            | '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{206F}'
            | '\u{FEFF}'
            | '\u{FFF9}'..='\u{FFFB}'
            | '\u{110BD}'
            | '\u{110CD}'
            | '\u{13430}'..='\u{1343F}'
            | '\u{1BCA0}'..='\u{1BCA3}'
            | '\u{1D173}'..='\u{1D17A}'
            | '\u{E0001}'
            | '\u{E0020}'..='\u{E007F}'
            // letters and symbols that render blank
            | '\u{115F}'
            | '\u{1160}'
            | '\u{3164}'
            | '\u{FFA0}'
            | '\u{2800}'
            // the combining grapheme joiner
            | '\u{034F}'
    )
}

/// Unicode's 66 noncharacters: U+FDD0..U+FDEF and U+nFFFE, U+nFFFF in each of the 17 planes.
fn is_noncharacter(c: char) -> bool {
    let code = u32::from(c);
    (0xFDD0..=0xFDEF).contains(&code) || code & 0xFFFE == 0xFFFE
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_short_and_key_safe() {
        assert_eq!(validate_id("game_id", "01JABC-x_y"), Ok(()));
        assert_eq!(validate_id("game_id", &"a".repeat(MAX_ID_LEN)), Ok(()));
        for bad in ["", &"a".repeat(MAX_ID_LEN + 1)] {
            assert_eq!(
                validate_id("game_id", bad),
                Err(IdError::IdLength {
                    field: "game_id".into()
                })
            );
        }
        for bad in ["a b", "a:b", "a{b}", "é", "a\nb", "a/b"] {
            let error = validate_id("player_id", bad).expect_err(bad);
            assert_eq!(
                error.to_string(),
                "player_id: only letters, digits, '-' and '_' are allowed"
            );
        }
    }

    #[test]
    fn rulesets_are_lowercase_paths() {
        assert_eq!(validate_ruleset("ruleset", "caro/15/blocked-ends"), Ok(()));
        assert_eq!(
            validate_ruleset("ruleset", "backgammon/money/a2-b-j"),
            Ok(())
        );
        for bad in [
            "",
            "Caro/15",
            "caro 15",
            "caro:15",
            &"a".repeat(MAX_RULESET_LEN + 1),
        ] {
            let error = validate_ruleset("ruleset", bad).expect_err(bad);
            assert!(error.to_string().starts_with("ruleset: "), "{error}");
        }
    }

    #[test]
    fn display_names_are_one_to_32_characters_counted_not_bytes() {
        assert_eq!(validate_display_name("display_name", "ann"), Ok(()));
        assert_eq!(validate_display_name("display_name", "Ann Lee"), Ok(()));
        assert_eq!(
            validate_display_name("display_name", &"é".repeat(32)),
            Ok(())
        );
        assert_eq!(validate_display_name("display_name", "李小龍"), Ok(()));
        assert_eq!(validate_display_name("display_name", "🙂 ann"), Ok(()));
        for bad in ["", &"x".repeat(33), &"é".repeat(33)] {
            let error = validate_display_name("display_name", bad).expect_err(bad);
            assert_eq!(
                error.to_string(),
                "display_name: must be 1 to 32 characters"
            );
        }
    }

    #[test]
    fn a_typed_name_is_stored_composed_and_a_stack_of_marks_is_refused() {
        // "Nguyễn" typed with combining marks is the same name as the precomposed one.
        let decomposed = "Nguye\u{302}\u{303}n";
        assert_eq!(
            normalize_display_name(&format!("  {decomposed} ")),
            "Nguyễn"
        );
        assert_eq!(validate_display_name("display_name", decomposed), Ok(()));
        // Two marks with no precomposed letter stay two marks, and pass.
        assert_eq!(
            validate_display_name("display_name", "q\u{323}\u{302}"),
            Ok(())
        );
        let zalgo = format!("ann{}", "\u{301}".repeat(30));
        let error = validate_display_name("display_name", &normalize_display_name(&zalgo))
            .expect_err("a stack of marks");
        assert_eq!(
            error.to_string(),
            "display_name: at most 2 combining marks on one character"
        );
        assert_eq!(error.reason(), "INVALID_DISPLAY_NAME");
    }

    #[test]
    fn invisible_marks_lone_accents_and_noncharacters_are_refused() {
        for (bad, why) in [
            ("an\u{34F}n", "combining grapheme joiner"),
            ("ann\u{FFFF}", "noncharacter U+FFFF"),
            ("ann\u{FDD0}", "noncharacter U+FDD0"),
            ("ann\u{10FFFE}", "noncharacter U+10FFFE"),
        ] {
            let error = validate_display_name("display_name", bad).expect_err(why);
            assert!(
                matches!(error, IdError::NameCharacter { .. }),
                "{why}: {error}"
            );
        }
        for lone in ["\u{301}", "\u{301}ann", "ann \u{301}"] {
            let error = validate_display_name("display_name", lone).expect_err(lone);
            assert_eq!(
                error.to_string(),
                "display_name: a combining mark must follow the character it marks"
            );
            assert_eq!(error.reason(), "INVALID_DISPLAY_NAME");
        }
        // A mark on its letter is still fine, and so are characters next to the refused ones.
        assert_eq!(
            validate_display_name("display_name", "Chloe\u{308}"),
            Ok(())
        );
        assert_eq!(validate_display_name("display_name", "ann\u{FFFD}"), Ok(()));
    }

    #[test]
    fn display_names_are_trimmed_by_the_caller() {
        for bad in [" ann", "ann ", "   ", "\u{A0}ann"] {
            let error = validate_display_name("players[1].display_name", bad).expect_err(bad);
            assert!(
                error
                    .to_string()
                    .starts_with("players[1].display_name: must not start or end"),
                "{bad:?}: {error}"
            );
        }
    }

    #[test]
    fn invisible_and_layout_characters_are_refused_by_code_point() {
        let cases = [
            ('\u{7}', "bell"),
            ('\n', "newline"),
            ('\u{1B}', "escape (terminal sequences)"),
            ('\u{9B}', "C1 control"),
            ('\u{202E}', "right-to-left override"),
            ('\u{2066}', "left-to-right isolate"),
            ('\u{200F}', "right-to-left mark"),
            ('\u{200B}', "zero-width space"),
            ('\u{200D}', "zero-width joiner"),
            ('\u{2060}', "word joiner"),
            ('\u{FEFF}', "byte order mark"),
            ('\u{AD}', "soft hyphen"),
            ('\u{E0041}', "tag letter"),
            ('\u{A0}', "no-break space"),
            ('\u{3000}', "ideographic space"),
            ('\u{2028}', "line separator"),
            ('\u{3164}', "Hangul filler"),
            ('\u{2800}', "blank Braille pattern"),
        ];
        for (c, what) in cases {
            let name = format!("a{c}b");
            let error = validate_display_name("display_name", &name).expect_err(what);
            assert_eq!(
                error,
                IdError::NameCharacter {
                    field: "display_name".into(),
                    found: c
                },
                "{what}"
            );
            assert!(
                error.to_string().starts_with(&format!(
                    "display_name: U+{:04X} is not allowed",
                    u32::from(c)
                )),
                "{what}: {error}"
            );
        }
    }

    #[cfg(feature = "grpc")]
    #[test]
    fn refusals_become_invalid_argument() {
        let status = tonic::Status::from(validate_id("ticket_id", "").expect_err("empty"));
        assert_eq!(status.code(), tonic::Code::InvalidArgument);
        assert_eq!(status.message(), "ticket_id: must be 1 to 64 characters");
    }

    mod properties {
        use super::super::*;
        use proptest::prelude::*;

        proptest! {
            /// A refused character is refused wherever it sits in an otherwise good name:
            /// no position (first, last, between two letters) escapes the scan.
            #[test]
            fn a_refused_character_is_refused_anywhere(
                name in "[a-zA-Z\u{e9}\u{674e} ]{0,28}",
                at in 0usize..=30,
                refused in prop::sample::select(vec![
                    '\u{0}', '\u{7F}', '\u{200B}', '\u{200D}', '\u{202E}', '\u{2067}',
                    '\u{FEFF}', '\u{A0}', '\u{E0020}', '\u{3164}',
                ]),
            ) {
                let good = format!("x{name}x");
                prop_assert_eq!(validate_display_name("display_name", &good), Ok(()));
                let mut chars: Vec<char> = good.chars().collect();
                chars.insert(at.min(chars.len()), refused);
                let name: String = chars.into_iter().collect();
                prop_assert!(validate_display_name("display_name", &name).is_err(), "{:?}", name);
            }

            /// Every id made of the allowed alphabet and length passes; the check is exact.
            #[test]
            fn ids_of_the_alphabet_pass(id in "[A-Za-z0-9_-]{1,64}") {
                prop_assert_eq!(validate_id("id", &id), Ok(()));
            }
        }
    }
}
