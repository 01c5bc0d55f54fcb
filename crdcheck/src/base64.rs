//! Padded standard base64, as Go's `base64.StdEncoding` decodes it: the `byte` format and the
//! encoded words of an email address read it.

/// The length of what padded standard base64 decodes to (Go's `base64.StdEncoding`, which
/// agrees with govalidator's base64 pattern but for the empty text), if it decodes.
pub(crate) fn decoded_len(text: &[u8]) -> Option<usize> {
    let symbol = |c: &u8| c.is_ascii_alphanumeric() || *c == b'+' || *c == b'/';
    if !text.len().is_multiple_of(4) {
        return None;
    }
    let groups = text.len() / 4;
    let mut len = 0;
    for (i, group) in text.chunks(4).enumerate() {
        let last = i + 1 == groups;
        let ok = match group {
            [a, b, b'=', b'='] if last => symbol(a) && symbol(b),
            [a, b, c, b'='] if last => symbol(a) && symbol(b) && symbol(c),
            _ => group.iter().all(symbol),
        };
        if !ok {
            return None;
        }
        len += 3 - group.iter().filter(|c| **c == b'=').count();
    }
    Some(len)
}
