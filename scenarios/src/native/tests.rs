use super::*;

#[test]
fn durations() {
    assert_eq!(parse_duration("2.5us"), Ok(Time::from_ns(2500)));
    assert_eq!(parse_duration("7ps"), Ok(Time::from_ps(7)));
    assert_eq!(parse_duration("1s"), Ok(Time::from_secs_f64(1.0)));
    // Scientific notation, as TRACE-FORMAT.md documents it.
    assert_eq!(parse_duration("1e-3s"), Ok(Time::from_ms(1)));
    assert_eq!(parse_duration("2.5E+3ns"), Ok(Time::from_ns(2500)));
    assert_eq!(parse_duration("4e2us"), Ok(Time::from_us(400)));
    assert!(
        parse_duration("1es")
            .unwrap_err()
            .to_string()
            .contains("unknown time unit `es`")
    );
    assert!(
        parse_duration("3")
            .unwrap_err()
            .to_string()
            .contains("needs a unit")
    );
    assert!(
        parse_duration("3h")
            .unwrap_err()
            .to_string()
            .contains("unknown time unit")
    );
    assert!(parse_duration("-1us").is_err());
}

#[test]
fn reducescatter_element_size() {
    let rs = |line| match parse_op(line, 2) {
        Ok(Op::ReduceScatter { elem_bytes, .. }) => Ok(elem_bytes),
        Ok(op) => Err(format!("not a reducescatter: {op:?}")),
        Err(e) => Err(e.to_string()),
    };
    assert_eq!(rs("reducescatter counts=8,8"), Ok(mpi_layer::ELEMENT_BYTES));
    assert_eq!(rs("reducescatter counts=8,8 elem=1"), Ok(1));
    assert!(
        rs("reducescatter counts=8,8 elem=0")
            .unwrap_err()
            .contains("elem must be at least 1 byte")
    );
}

#[test]
fn field_errors() {
    assert!(
        parse_op("send dst=1 tag=0", 4)
            .unwrap_err()
            .to_string()
            .contains("missing field `bytes=`")
    );
    assert!(
        parse_op("send dst=9 tag=0 bytes=1", 4)
            .unwrap_err()
            .to_string()
            .contains("dst=9 names no rank")
    );
    assert!(
        parse_op("send dst=1 tag=0 bytes=-1", 4)
            .unwrap_err()
            .to_string()
            .contains("must not be negative")
    );
    assert!(
        parse_op("send dst=1 tag=0 bytes=1 colour=2", 4)
            .unwrap_err()
            .to_string()
            .contains("unknown field `colour`")
    );
    assert!(
        parse_op("send dst=1 dst=2 tag=0 bytes=1", 4)
            .unwrap_err()
            .to_string()
            .contains("given twice")
    );
    assert!(
        parse_op("jump", 4)
            .unwrap_err()
            .to_string()
            .contains("unknown operation")
    );
}
