use fairlab_radon_core::{DecodeError, Feedback, Trend};

fn sample() -> Feedback {
    Feedback {
        frame: 0x0102_0304_0506_0708,
        depth_milli_pkts: -2,
        trend: Trend::Increasing,
        congested: true,
        received: 300,
        lost: 7,
    }
}

#[test]
fn encoding_is_the_documented_layout() {
    let bytes = sample().to_bytes();
    assert_eq!(Feedback::WIRE_BYTES, 40);
    assert_eq!(&bytes[0..8], b"RDFB\x01\x01\x01\x00");
    assert_eq!(&bytes[8..16], &[1, 2, 3, 4, 5, 6, 7, 8]);
    assert_eq!(
        &bytes[16..24],
        &[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe]
    );
    assert_eq!(&bytes[24..32], &[0, 0, 0, 0, 0, 0, 1, 44]);
    assert_eq!(&bytes[32..40], &[0, 0, 0, 0, 0, 0, 0, 7]);
}

#[test]
fn round_trip_every_trend_and_flag() {
    for trend in [
        Trend::Increasing,
        Trend::NoTrend,
        Trend::Ambiguous,
        Trend::Unknown,
    ] {
        for congested in [false, true] {
            let fb = Feedback {
                trend,
                congested,
                ..sample()
            };
            let mut buf = [0u8; 64];
            assert_eq!(fb.encode(&mut buf), Feedback::WIRE_BYTES);
            assert_eq!(Feedback::decode(&buf), Ok(fb));
        }
    }
    assert_eq!(sample().depth_pkts(), -0.002);
}

#[test]
fn encode_into_a_short_buffer_writes_nothing() {
    let mut buf = [9u8; 39];
    assert_eq!(sample().encode(&mut buf), 0);
    assert_eq!(buf, [9u8; 39]);
}

#[test]
fn decode_errors_are_values() {
    let good = sample().to_bytes();
    assert_eq!(
        Feedback::decode(&good[..39]),
        Err(DecodeError::TooShort { len: 39 })
    );
    assert_eq!(Feedback::decode(&[]), Err(DecodeError::TooShort { len: 0 }));
    let mut bad = good;
    bad[0] = b'X';
    assert_eq!(Feedback::decode(&bad), Err(DecodeError::BadMagic));
    let mut v2 = good;
    v2[4] = 2;
    assert_eq!(
        Feedback::decode(&v2),
        Err(DecodeError::UnsupportedVersion(2))
    );
    let mut trend = good;
    trend[5] = 9;
    assert_eq!(Feedback::decode(&trend), Err(DecodeError::BadTrend(9)));
    let mut flags = good;
    flags[6] = 0x03;
    assert_eq!(Feedback::decode(&flags), Err(DecodeError::BadFlags(0x03)));
    let mut reserved = good;
    reserved[7] = 0x10;
    assert_eq!(
        Feedback::decode(&reserved),
        Err(DecodeError::BadFlags(0x11))
    );
    let msg = DecodeError::UnsupportedVersion(2).to_string();
    assert!(msg.contains('2') && msg.contains('1'), "{msg}");
}
