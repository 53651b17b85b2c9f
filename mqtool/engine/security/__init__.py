"""Channel security: data and pure functions (rules in, decision out) that the channel
transport and the REST stand-in call before a connection touches the store. It imports
neither of them.

The API (names are stable; each module's docstring has the detail):

keyring.py    key rings, folders of PEM files mqtool manages
    KeyRing(path): .create(), .add_certificate(label, cert_pem, key_pem, replace=False),
        .add_ca(label, cert_pem, replace=False), .remove(label), .entries() -> [Entry]
        (label, kind, subject, issuer, not_before, not_after, fingerprint, serial,
        key_type, key_bits), .entry(label), .files(label) -> (cert path, key path),
        .ca_bundle() -> path or None, .exists();  KeyRingError
    ring_path(state_dir, sslkeyr) -> the folder QMGR SSLKEYR names (under STATE/keyrings/)
    certificate_label(channel CERTLABL, qmgr CERTLABL, qmname) -> the label a channel uses
    default_label(qmname) -> ibmWebSphereMQ<qmname>

cipherspecs.py  IBM's CipherSpec names and OpenSSL's
    canonical(sslciph) -> name ("" for blank; z/OS hex codes too); CipherSpecError
    names(), members(name, fips), protocols(name), honoured(name), is_alias(name)
    negotiated(protocol, openssl_name) -> IBM name;  accepts(sslciph, negotiated) -> bool

tls.py        contexts, the checks after the handshake, the CSQX message of a failure
    for_channel(state_dir, qmname, qmgr_attrs, channel_attrs, side, channel) -> ssl.SSLContext
        from the stored definitions (QMGR SSLKEYR, SSLTASKS, SSLFIPS, CERTLABL; channel
        SSLCIPH, SSLCAUTH, CERTLABL)
    server_context(ring, label, sslciph, sslcauth="REQUIRED", fips=False, channel="")
    client_context(ring, label, sslciph, fips=False, channel="", explicit=False)
        -> ssl.SSLContext;  TLSSetupError(.failure)
    spec_of(sslsock) -> IBM name of what was negotiated
    check_cipher(sslciph, sslsock) / check_peer(sslpeer, sslsock) -> TLSFailure | None
    classify(exc, side=CLIENT|SERVER) -> TLSFailure(msg_id, reason, fields, .partner_id,
        .message_fields(name, conname): the fields of the catalogue message (z/OS),
        .ztpf_fields(name): those of MQSC0380E (z/TPF))
    chstatus_fields(sslsock, certificate_user="") -> {sslciph, sslpeer, sslcerti,
        sslcertu, sslrkeys, sslkeyda, sslkeyti}: the SSL fields of DISPLAY CHSTATUS, keyed
        as the channel status keeps its fields (commands/zos/display.py shows them)
    peer_certificate(sslsock) -> x509.Certificate | None;  can_pin_tls13()

dn.py         distinguished names and IBM's SSLPEER matching
    parse_pattern(text) -> Pattern (.matches(Name)); parse_name(text) -> Name;
    of_certificate(subject, serial="") -> Name (.text());  matches(pattern, name); DNError

addresses.py  generic IP addresses (CHLAUTH ADDRESS, ADDRLIST)
    parse(text) -> AddressPattern (.matches(address), .specificity()); matches(); AddressError

chlauth.py    channel authentication records and IBM's precedence
    Record(profile, type, address, addrlist, userlist, sslpeer, sslcerti, clntuser,
        qmname, usersrc, mcauser, chckclnt, warn, descr, custom); .key(), .to_dict(),
        Record.from_dict()
    check(record, action); change(records, record, action) -> records;  ChlauthError
    Connection(channel, address, remote_qmgr, client_user, peer, issuer, client,
        channel_mcauser, qmname)
    blocked_address(records, address) -> Record | None   (the listener, first)
    decide(records, connection) -> Decision(allowed, reason, mcauser, record, blocking,
        warned, chckclnt, .msg_id: CSQX782E | CSQX777E | CSQX776E,
        .console(channel, conname) -> [(msg_id, fields)]: CSQX787I for WARN(YES), the refusal)
    runcheck(records, connection) -> RunCheck(record, decision)
    backstop() -> the records of a new queue manager; privileged(qmname); chinit_user(qmname)

    Note for message channels: a receiver whose MCAUSER is blank runs as the channel
    initiator's user id (QMGRCHIN), which *MQADMIN covers, so the back-stop BLOCKUSER
    record refuses it, as on z/OS: give the receiver an MCAUSER, map its partner with a
    QMGRMAP or ADDRESSMAP record, or ALTER QMGR CHLAUTH(DISABLED).

connauth.py   CONNAUTH with AUTHINFO AUTHTYPE(IDPWOS)
    AuthInfo(name, chckclnt, chcklocl, adoptctx, faildlay), AuthInfo.from_attrs(name, attrs)
    check(authinfo, user, password, verify, *, arrived, asserted, client, chlauth_chckclnt,
        privileged) -> Outcome(allowed, user, checked, reason, answer_at, mqrc)
    check_rest(authinfo, user, password, verify, arrived) -> Outcome  (the REST stand-in)
    requirement(authinfo, client, chlauth_chckclnt) -> NONE | OPTIONAL | REQUIRED | REQDADM

x509.py       the fields of a certificate (DER), bounded: read(der) -> Certificate
"""
