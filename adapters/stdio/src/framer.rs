//! Splitting a byte stream into newline-delimited frames with a bounded buffer.

use ports::transport::Frame;

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Turns chunks of bytes into frames. Holds at most `max` bytes of an unfinished line: past that
/// the line is reported as [`Frame::TooLong`] once and its remaining bytes are dropped up to the
/// next newline, where framing resumes.
#[derive(Debug)]
pub struct LineFramer {
    max: usize,
    line: Vec<u8>,
    discarding: bool,
}

impl LineFramer {
    pub fn new(max: usize) -> Self {
        Self { max, line: Vec::new(), discarding: false }
    }

    /// Feeds `chunk`, appending every frame it completes to `out`.
    pub fn push(&mut self, mut chunk: &[u8], out: &mut Vec<Frame>) {
        while !chunk.is_empty() {
            let newline = chunk.iter().position(|&b| b == b'\n');
            let (segment, rest) = match newline {
                Some(i) => (&chunk[..i], Some(&chunk[i + 1..])),
                None => (chunk, None),
            };
            if !self.discarding {
                if self.line.len() + segment.len() > self.max {
                    out.push(Frame::TooLong { len: self.line.len() + segment.len(), limit: self.max });
                    self.line = Vec::new();
                    self.discarding = true;
                } else {
                    self.line.extend_from_slice(segment);
                }
            }
            match rest {
                Some(rest) => {
                    if self.discarding {
                        self.discarding = false;
                    } else if let Some(frame) = self.take_line() {
                        out.push(frame);
                    }
                    chunk = rest;
                }
                None => break,
            }
        }
    }

    /// The last line at end of input, when it had no newline.
    pub fn finish(&mut self) -> Option<Frame> {
        if self.discarding {
            self.discarding = false;
            return None;
        }
        self.take_line()
    }

    fn take_line(&mut self) -> Option<Frame> {
        let mut line = std::mem::take(&mut self.line);
        if line.last() == Some(&b'\r') {
            line.pop();
        }
        if line.starts_with(BOM) {
            line.drain(..BOM.len());
        }
        if line.iter().all(u8::is_ascii_whitespace) {
            return None;
        }
        Some(Frame::Message(line))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn frames(max: usize, chunks: &[&[u8]]) -> Vec<Frame> {
        let mut f = LineFramer::new(max);
        let mut out = Vec::new();
        for c in chunks {
            f.push(c, &mut out);
        }
        out.extend(f.finish());
        out
    }

    fn msg(s: &str) -> Frame {
        Frame::Message(s.as_bytes().to_vec())
    }

    #[test]
    fn crlf_bom_and_blank_lines_are_tolerated() {
        assert_eq!(
            frames(100, &[b"\xEF\xBB\xBF{\"a\":1}\r\n\r\n\n  \n{\"b\":2}\n"]),
            vec![msg("{\"a\":1}"), msg("{\"b\":2}")]
        );
    }

    #[test]
    fn a_message_split_across_chunks_is_one_frame() {
        assert_eq!(frames(100, &[b"{\"jso", b"nrpc\":", b"\"2.0\"}\n"]), vec![msg("{\"jsonrpc\":\"2.0\"}")]);
    }

    #[test]
    fn an_overlong_line_is_reported_once_and_framing_resumes() {
        let got = frames(8, &[b"0123456", b"789abc", b"def\n{}\n"]);
        assert_eq!(got, vec![Frame::TooLong { len: 13, limit: 8 }, msg("{}")]);
    }

    #[test]
    fn a_line_of_exactly_the_cap_passes() {
        assert_eq!(frames(4, &[b"abcd\nabcde\n"]), vec![msg("abcd"), Frame::TooLong { len: 5, limit: 4 }]);
    }

    #[test]
    fn invalid_utf8_is_just_bytes() {
        assert_eq!(frames(100, &[b"\xff\xfe\n{}\n"]), vec![Frame::Message(vec![0xff, 0xfe]), msg("{}")]);
    }

    #[test]
    fn last_line_without_newline_is_kept() {
        assert_eq!(frames(100, &[b"{}\n{\"x\":1}"]), vec![msg("{}"), msg("{\"x\":1}")]);
    }

    proptest! {
        // However the bytes are chunked, the frames are the same, and the framer never holds
        // more than its cap.
        #[test]
        fn chunking_does_not_change_frames(
            lines in proptest::collection::vec("[a-z{}\":]{0,20}", 0..20),
            cuts in proptest::collection::vec(0usize..400, 0..10),
            max in 1usize..30,
        ) {
            let text = lines.join("\n");
            let bytes = text.as_bytes();
            let whole = frames(max, &[bytes]);
            let mut points: Vec<usize> = cuts.into_iter().map(|c| c.min(bytes.len())).collect();
            points.sort_unstable();
            let mut chunks = Vec::new();
            let mut last = 0;
            for p in points {
                chunks.push(&bytes[last..p]);
                last = p;
            }
            chunks.push(&bytes[last..]);
            let mut f = LineFramer::new(max);
            let mut out = Vec::new();
            for c in &chunks {
                f.push(c, &mut out);
                prop_assert!(f.line.len() <= max);
            }
            out.extend(f.finish());
            // TooLong's `len` depends on where the cap was crossed, which chunking changes;
            // compare everything else.
            let norm = |v: Vec<Frame>| v.into_iter().map(|f| match f {
                Frame::TooLong { limit, .. } => Frame::TooLong { len: 0, limit },
                m => m,
            }).collect::<Vec<_>>();
            prop_assert_eq!(norm(out), norm(whole));
        }
    }
}
