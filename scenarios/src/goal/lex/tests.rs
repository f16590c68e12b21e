use super::*;

fn op(s: &str) -> OpSpec {
    match line(s.as_bytes()).unwrap() {
        Item::Op(_, o) => o,
        other => panic!("{other:?}"),
    }
}

#[test]
fn spellings_txt2bin_accepts() {
    let send = OpSpec {
        kind: Kind::Send,
        size: 8,
        peer: 1,
        tag: 0,
        cpu: 0,
        nic: 0,
    };
    // A blank before `b`, none at all, none after a label's colon.
    assert_eq!(op("send 8 b to 1"), send);
    assert_eq!(op("send 8b to 1"), send);
    assert_eq!(
        line(b"l1:send 8b to 1").unwrap(),
        Item::Op(Some(b"l1"), send)
    );
    assert_eq!(
        line(b"l1 : send 8b to 1").unwrap(),
        Item::Op(Some(b"l1"), send)
    );
    assert_eq!(line(b"rank 0{").unwrap(), Item::Open(0));
    assert_eq!(line(b"rank 0 {\r").unwrap(), Item::Open(0));
    assert_eq!(op("send 8b to 1 tag 4294967294").tag, 4294967294);
    assert_eq!(op("recv 8b from 1 tag 4294967295").tag, ANY);
    assert_eq!(op("recv 8b from -1 tag -1").peer, ANY);
    let o = op("send 8b to 1tag 3cpu 2nic 1");
    assert_eq!((o.tag, o.cpu, o.nic), (3, 2, 1));
    assert_eq!(op("calc 5 cpu 3").cpu, 3);
    assert_eq!(line(b"a irequires b").unwrap(), Item::Dep(b"a", b"b", true));
    assert_eq!(line(b"a requires b").unwrap(), Item::Dep(b"a", b"b", false));
    // `tag` and `b` are labels at the start of an item.
    assert_eq!(
        line(b"tag requires b").unwrap(),
        Item::Dep(b"tag", b"b", false)
    );
}

#[test]
fn what_it_refuses() {
    let e = |s: &str| line(s.as_bytes()).unwrap_err().to_string();
    // `rank0` and `send8b` are one identifier each, as in txt2bin.
    assert!(e("send8b to 1").contains("unknown operation `send8b`"));
    assert!(
        e("rank0 {").contains("unknown operation `rank0`"),
        "{}",
        e("rank0 {")
    );
    assert!(e("send 8b to 1 tag -1").contains("wildcard"));
    assert!(e("send 8b to 1 cpu 256").contains("cpu 256 is larger than 255"));
    assert!(e("send 8b to 1 tag 4294967296").contains("larger than 4294967295"));
    assert!(e("send 8b to 1 nic 1 cpu 1").contains("in that order"));
    assert!(e("calc 5 nic 1").contains("`cpu` or the end"));
    assert!(e("send 8 to 1").contains("must be bytes"));
    assert!(e("send 8b to -1").contains("a rank"));
}

/// `next_line` over a buffer gives what `line` gives each line after
/// its comments are removed, and asks for more (`None`) whenever the
/// buffer ends before a line does, wherever it is cut.
#[test]
fn in_place_reading_is_line_reading() {
    let text: &[u8] = b"num_ranks 2\r\nrank 0 {\nl1: send 8b to 1 tag 3\n\
        l2:recv 8 b from -1 tag -1 // x\n l2 requires l1\r\n/* a\nb */ calc 5 cpu 1\n\
        bad line\nsend 8b to 1 nic 1 cpu 1\n}\n}";
    let want: Vec<Result<String, GoalError>> = {
        let (mut b, mut out, mut v) = (false, Vec::new(), Vec::new());
        for l in text.split(|&c| c == b'\n') {
            let l = if strip_comments(l, &mut b, &mut out) {
                &out[..]
            } else {
                l
            };
            v.push(line(l).map(|i| format!("{i:?}")));
        }
        v
    };
    for cut in 0..=text.len() {
        // The buffer holds the text up to `cut`, then all of it.
        let (mut at, mut b, mut strip, mut got) = (0, false, Vec::new(), Vec::new());
        while at < text.len() {
            let (buf, eof) = if at < cut {
                (&text[at..cut], false)
            } else {
                (&text[at..], true)
            };
            match next_line(buf, eof, &mut b, &mut strip) {
                Some((i, used)) => {
                    assert!(used > 0 && used <= buf.len());
                    got.push(i.map(|i| format!("{i:?}")));
                    at += used;
                }
                None => {
                    assert!(!eof, "cut {cut} at {at}");
                    // Read on: the whole text.
                    let (i, used) = next_line(&text[at..], true, &mut b, &mut strip).unwrap();
                    got.push(i.map(|i| format!("{i:?}")));
                    at += used;
                }
            }
        }
        assert_eq!(got, want, "cut at {cut}");
    }
}

/// The quick path reads the lines Schedgen writes, and on any line
/// it reads gives what the scanner gives (random lines from the
/// grammar's tokens, blanks and misspellings; the module's
/// `debug_assert` checks the same on every line a debug build reads).
#[test]
fn quick_path_is_the_scanner() {
    for l in [
        "l1: send 8b to 1 tag 1\n",
        "l2: recv 8b from 1023 tag 1\n",
        "l3 requires l2\n",
        "l4 irequires l2\r\n",
        "l5: calc 100 cpu 1\n",
        "send 8b to 1\n",
        "l6: recv 16b from -1 tag -1 cpu 2 nic 3\n",
    ] {
        let q = quick(l.as_bytes());
        assert!(q.is_some(), "{l:?}");
        assert_eq!(
            q.map(|(i, u)| (Ok(i), u)),
            scan_line(l.as_bytes(), true, &mut false, &mut Vec::new()),
            "{l:?}"
        );
    }
    let tokens: [&[u8]; 30] = [
        b"l1",
        b"l2",
        b"tag",
        b":",
        b"send",
        b"recv",
        b"calc",
        b"8",
        b"8b",
        b"b",
        b"to",
        b"from",
        b"-1",
        b"-",
        b"tag",
        b"cpu",
        b"nic",
        b"requires",
        b"irequires",
        b"255",
        b"256",
        b"4294967295",
        b"4294967294",
        b"12345678901234567890",
        b"1234567890123456789",
        b"rank",
        b"}",
        b"//",
        b"x_9",
        b"\r",
    ];
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = |n: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % n
    };
    let (mut seen, mut line) = (0, Vec::new());
    // Well-formed lines with some words replaced: most reach the quick
    // path, many only just.
    let shapes: [&[&[u8]]; 4] = [
        &[
            b"l1", b":", b"send", b"8b", b"to", b"1", b"tag", b"3", b"cpu", b"1", b"nic", b"2",
        ],
        &[
            b"l2", b":", b"recv", b"8", b"b", b"from", b"-1", b"tag", b"-1",
        ],
        &[b"l1", b"requires", b"l2"],
        &[b"calc", b"100", b"cpu", b"3"],
    ];
    for _ in 0..200_000 {
        line.clear();
        let shape = shapes[next(4) as usize];
        let n = if next(4) == 0 {
            next(10) as usize
        } else {
            shape.len()
        };
        for i in 0..n {
            let w = match shape.get(i) {
                Some(w) if next(6) != 0 => w,
                _ => tokens[next(tokens.len() as u64) as usize],
            };
            line.extend_from_slice(w);
            line.extend_from_slice([&b" "[..], b"", b"  ", b"\t"][next(4) as usize]);
        }
        line.push(b'\n');
        line.extend_from_slice(b"more");
        if let Some((it, used)) = quick(&line) {
            seen += 1;
            assert_eq!(
                Some((Ok(it), used)),
                scan_line(&line, false, &mut false, &mut Vec::new()),
                "{:?}",
                String::from_utf8_lossy(&line)
            );
        }
    }
    // The random lines reach the quick path often enough to test it.
    assert!(seen > 1000, "{seen}");
}

#[test]
fn comments() {
    let (mut b, mut out) = (false, Vec::new());
    assert!(!strip_comments(b"calc 5", &mut b, &mut out));
    assert!(strip_comments(b"calc 5 // x", &mut b, &mut out));
    assert_eq!(out, b"calc 5 ");
    assert!(strip_comments(b"calc /* x", &mut b, &mut out));
    assert!(b);
    assert!(strip_comments(b"y */ 5", &mut b, &mut out));
    assert_eq!(out, b" 5");
    assert!(!b);
}

#[test]
fn a_cpu_nic_or_tag_beyond_its_width_is_an_error() {
    let e = |s: &str| line(s.as_bytes()).unwrap_err().to_string();
    assert_eq!(e("calc 5 cpu 256"), "cpu 256 is larger than 255");
    assert_eq!(e("send 8b to 1 nic 256"), "nic 256 is larger than 255");
    assert_eq!(
        e("send 8b to 1 tag 4294967296"),
        "tag 4294967296 is larger than 4294967295"
    );
    let o = op("recv 8b from 1 tag 7 cpu 255 nic 255");
    assert_eq!((o.tag, o.cpu, o.nic), (7, 255, 255));
}
