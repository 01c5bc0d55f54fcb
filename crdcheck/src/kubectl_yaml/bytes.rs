//! Step 1: a file's bytes as the text kubectl reads.

/// The bytes of a file as the text kubectl reads, and what it changed in them.
pub(crate) fn decode_bytes(bytes: &[u8]) -> (String, Vec<String>) {
    let mut warnings = Vec::new();
    let text = if let Some(rest) = bytes.strip_prefix(&[0xFF, 0xFE]) {
        utf16(rest, u16::from_le_bytes)
    } else if let Some(rest) = bytes.strip_prefix(&[0xFE, 0xFF]) {
        utf16(rest, u16::from_be_bytes)
    } else {
        let bytes = bytes.strip_prefix(&[0xEF, 0xBB, 0xBF]).unwrap_or(bytes);
        if let Err(e) = std::str::from_utf8(bytes) {
            warnings.push(format!(
                "byte {} is not UTF-8: kubectl reads each such sequence as U+FFFD (\u{FFFD}), \
                 which the API server then stores",
                e.valid_up_to()
            ));
        }
        // Each maximal ill-formed part becomes one U+FFFD, as golang.org/x/text's decoder does.
        String::from_utf8_lossy(bytes).into_owned()
    };
    (text, warnings)
}

/// UTF-8, each byte that does not start a valid sequence replaced by U+FFFD, as Go's
/// encoding/json writes a string.
pub(super) fn utf8_lossy_per_byte(mut bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    loop {
        match std::str::from_utf8(bytes) {
            Ok(valid) => {
                out.push_str(valid);
                return out;
            }
            Err(e) => {
                let good = e.valid_up_to();
                out.push_str(std::str::from_utf8(&bytes[..good]).unwrap_or_default());
                out.push('\u{FFFD}');
                bytes = &bytes[good + 1..];
            }
        }
    }
}

fn utf16(bytes: &[u8], unit: fn([u8; 2]) -> u16) -> String {
    let units = bytes.chunks_exact(2).map(|c| unit([c[0], c[1]]));
    let mut out: String = char::decode_utf16(units)
        .map(|c| c.unwrap_or('\u{FFFD}'))
        .collect();
    if !bytes.len().is_multiple_of(2) {
        out.push('\u{FFFD}');
    }
    out
}
