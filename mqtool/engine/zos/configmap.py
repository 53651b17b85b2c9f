"""The table of configuration events: which mqtool object types IBM MQ for z/OS reports,
with the MQOT_* object type and the parameter id of the object's name, and for each
MQSC keyword the PCF parameter id, structure and the values of its words.

The numbers are IBM's public constants (cmqc.h, cmqcfc.h). An attribute not in this
table has no parameter id that IBM documents for the object's event data (or none
mqtool has looked up): it is left out of the event, and mqtool-zos(7) says so. An enum
word that is not in its value map is left out the same way, never guessed.

Rows: KEYWORD: (parameter id, structure, value map or None). Structure is "IN"
(MQCFIN: an integer, or an enum word through its value map), "ST" (MQCFST) or
"SL" (MQCFSL: a list of names)."""

from __future__ import annotations

from typing import Final

from mqtool.engine.core.mqtm import APPLTYPES

Row = tuple[int, str, dict[str, int] | None]

# MQOT_* (cmqc.h) of each object type an event reports, and MQCA_*/MQCACH_* of its name.
MQOT_Q, MQOT_NAMELIST, MQOT_PROCESS, MQOT_STORAGE_CLASS, MQOT_Q_MGR = 1, 2, 3, 4, 5
MQOT_CHANNEL, MQOT_AUTH_INFO, MQOT_TOPIC = 6, 7, 8
MQOT_CHLAUTH = 1016
CHLAUTH_STORE = "CHLAUTHREC"  # the store's object type of a channel authentication record
OBJECTS: Final[dict[str, tuple[int, int]]] = {
    "QLOCAL": (MQOT_Q, 2016),  # MQCA_Q_NAME
    "QMODEL": (MQOT_Q, 2016),
    "QALIAS": (MQOT_Q, 2016),
    "QREMOTE": (MQOT_Q, 2016),
    "NAMELIST": (MQOT_NAMELIST, 2010),  # MQCA_NAMELIST_NAME
    "PROCESS": (MQOT_PROCESS, 2012),  # MQCA_PROCESS_NAME
    "STGCLASS": (MQOT_STORAGE_CLASS, 2022),  # MQCA_STORAGE_CLASS
    "QMGR": (MQOT_Q_MGR, 2015),  # MQCA_Q_MGR_NAME
    "CHANNEL": (MQOT_CHANNEL, 3501),  # MQCACH_CHANNEL_NAME
    "AUTHINFO": (MQOT_AUTH_INFO, 2045),  # MQCA_AUTH_INFO_NAME
    "TOPIC": (MQOT_TOPIC, 2092),  # MQCA_TOPIC_NAME
    # Channel authentication records (SET CHLAUTH), stored one object per record: the
    # name in the event is the record's profile (MQCACH_CHANNEL_NAME).
    CHLAUTH_STORE: (MQOT_CHLAUTH, 3501),
}
# REFRESH QMGR OBJECT(...) words and the mqtool object types they select.
QUEUES = ("QLOCAL", "QMODEL", "QALIAS", "QREMOTE")
REFRESH_OBJECTS: Final[dict[str, tuple[str, ...]]] = {
    "ALL": (*QUEUES, "NAMELIST", "PROCESS", "STGCLASS", "QMGR", "CHANNEL", "AUTHINFO", "TOPIC", CHLAUTH_STORE),
    "QUEUE": QUEUES,
    **{kind: (kind,) for kind in OBJECTS if kind != CHLAUTH_STORE},
    "CHLAUTH": (CHLAUTH_STORE,),
}
MQIA_Q_TYPE = 20
Q_TYPES: Final[dict[str, int]] = {"QLOCAL": 1, "QMODEL": 2, "QALIAS": 3, "QREMOTE": 6}  # MQQT_*
MQIA_QSG_DISP, MQQSGD_Q_MGR = 63, 0
MQCA_ALTERATION_DATE, MQCA_ALTERATION_TIME = 2027, 2028
MQCA_CREATION_DATE, MQCA_CREATION_TIME = 2004, 2005

# Value maps: MQSC word -> IBM's constant.
YES_NO = {"NO": 0, "YES": 1}
INHIBIT = {"ENABLED": 0, "DISABLED": 1}  # MQQA_GET/PUT_ALLOWED, _INHIBITED
EVENT = {"DISABLED": 0, "ENABLED": 1, "EXCEPTION": 2, "NODISPLAY": 2}  # MQEVR_*
PERSIST = {"NO": 0, "YES": 1}  # MQPER_*
TOPIC_PERSIST = {"ASPARENT": -1, "NO": 0, "YES": 1}
TRIGTYPE = {"NONE": 0, "FIRST": 1, "EVERY": 2, "DEPTH": 3}  # MQTT_*
USAGE = {"NORMAL": 0, "XMITQ": 1}  # MQUS_*
DEFSOPT = {"SHARED": 2, "EXCL": 4}  # MQOO_INPUT_SHARED, MQOO_INPUT_EXCLUSIVE
MSGDLVSQ = {"PRIORITY": 0, "FIFO": 1}  # MQMDS_*
DEFTYPE = {"PREDEFINED": 1, "PERMDYN": 2, "TEMPDYN": 3, "SHAREDYN": 4}  # MQQDT_*
INDXTYPE = {"NONE": 0, "MSGID": 1, "CORRELID": 2, "MSGTOKEN": 4, "GROUPID": 5}  # MQIT_*
DEFBIND = {"OPEN": 0, "NOTFIXED": 1, "GROUP": 2}  # MQBND_*
CHLTYPE = {"SDR": 1, "SVR": 2, "RCVR": 3, "RQSTR": 4, "CLNTCONN": 6, "SVRCONN": 7}  # MQCHT_*
TRPTYPE = {"TCP": 2}  # MQXPT_TCP
NPMSPEED = {"NORMAL": 1, "FAST": 2}  # MQNPMS_*
PUTAUT = {"DEF": 1, "CTX": 2, "ONLYMCA": 3, "ALTMCA": 4}  # MQPA_*
CONVERT = {"NO": 0, "YES": 1}  # MQCDC_*
NLTYPE = {"NONE": 0, "QUEUE": 1, "Q": 1, "CLUSTER": 2, "AUTHINFO": 4}  # MQNT_*
PUB_SUB = {"ASPARENT": 0, "DISABLED": 1, "ENABLED": 2}  # MQTA_PUB_*, MQTA_SUB_*
DURSUB = {"ASPARENT": 0, "YES": 1, "NO": 2}  # MQSUB_DURABLE_AS_PARENT, _ALLOWED, _INHIBITED
AUTHTYPE = {"CRLLDAP": 1, "OCSP": 2, "IDPWOS": 3, "IDPWLDAP": 4}  # MQAIT_*
APPLTYPE = dict(APPLTYPES)  # MQAT_*
CHLAUTH_TYPE = {"BLOCKUSER": 1, "BLOCKADDR": 2, "SSLPEERMAP": 3, "ADDRESSMAP": 4, "USERMAP": 5, "QMGRMAP": 6}
USERSRC = {"MAP": 0, "NOACCESS": 1, "CHANNEL": 2}  # MQUSRC_*
CHCKCLNT = {"REQDADM": 2, "REQUIRED": 3, "ASQMGR": 4}  # MQCHK_*

_QUEUE_COMMON: dict[str, Row] = {
    "DESCR": (2013, "ST", None),  # MQCA_Q_DESC
    "PUT": (10, "IN", INHIBIT),  # MQIA_INHIBIT_PUT
    "DEFPRTY": (6, "IN", None),  # MQIA_DEF_PRIORITY
    "DEFPSIST": (5, "IN", PERSIST),  # MQIA_DEF_PERSISTENCE
    "DEFBIND": (61, "IN", DEFBIND),  # MQIA_DEF_BIND
    "CLUSTER": (2029, "ST", None),  # MQCA_CLUSTER_NAME
    "CLUSNL": (2030, "ST", None),  # MQCA_CLUSTER_NAMELIST
    "CLWLPRTY": (96, "IN", None),  # MQIA_CLWL_Q_PRIORITY
    "CLWLRANK": (95, "IN", None),  # MQIA_CLWL_Q_RANK
    "CUSTOM": (2119, "ST", None),  # MQCA_CUSTOM
}
_LOCAL_OR_MODEL: dict[str, Row] = {
    "GET": (9, "IN", INHIBIT),  # MQIA_INHIBIT_GET
    "MAXDEPTH": (15, "IN", None),  # MQIA_MAX_Q_DEPTH
    "MAXMSGL": (13, "IN", None),  # MQIA_MAX_MSG_LENGTH
    "SHARE": (23, "IN", YES_NO),  # MQIA_SHAREABILITY: MQQA_SHAREABLE 1
    "DEFSOPT": (4, "IN", DEFSOPT),  # MQIA_DEF_INPUT_OPEN_OPTION
    "MSGDLVSQ": (16, "IN", MSGDLVSQ),  # MQIA_MSG_DELIVERY_SEQUENCE
    "HARDENBO": (8, "IN", YES_NO),  # MQIA_HARDEN_GET_BACKOUT: MQQA_BACKOUT_HARDENED 1
    "RETINTVL": (21, "IN", None),  # MQIA_RETENTION_INTERVAL
    "BOTHRESH": (22, "IN", None),  # MQIA_BACKOUT_THRESHOLD
    "BOQNAME": (2019, "ST", None),  # MQCA_BACKOUT_REQ_Q_NAME
    "USAGE": (12, "IN", USAGE),  # MQIA_USAGE
    "TRIGGER": (24, "IN", YES_NO),  # MQIA_TRIGGER_CONTROL: MQTC_ON 1
    "TRIGTYPE": (28, "IN", TRIGTYPE),  # MQIA_TRIGGER_TYPE
    "TRIGDPTH": (29, "IN", None),  # MQIA_TRIGGER_DEPTH
    "TRIGMPRI": (26, "IN", None),  # MQIA_TRIGGER_MSG_PRIORITY
    "TRIGDATA": (2023, "ST", None),  # MQCA_TRIGGER_DATA
    "INITQ": (2008, "ST", None),  # MQCA_INITIATION_Q_NAME
    "PROCESS": (2012, "ST", None),  # MQCA_PROCESS_NAME
    "QDEPTHHI": (40, "IN", None),  # MQIA_Q_DEPTH_HIGH_LIMIT
    "QDEPTHLO": (41, "IN", None),  # MQIA_Q_DEPTH_LOW_LIMIT
    "QDPMAXEV": (42, "IN", EVENT),  # MQIA_Q_DEPTH_MAX_EVENT
    "QDPHIEV": (43, "IN", EVENT),  # MQIA_Q_DEPTH_HIGH_EVENT
    "QDPLOEV": (44, "IN", EVENT),  # MQIA_Q_DEPTH_LOW_EVENT
    "QSVCINT": (54, "IN", None),  # MQIA_Q_SERVICE_INTERVAL
    "INDXTYPE": (57, "IN", INDXTYPE),  # MQIA_INDEX_TYPE
    "STGCLASS": (2022, "ST", None),  # MQCA_STORAGE_CLASS
    "CFSTRUCT": (2039, "ST", None),  # MQCA_CF_STRUC_NAME
    "DEFTYPE": (7, "IN", DEFTYPE),  # MQIA_DEFINITION_TYPE
    "ACCTQ": (134, "IN", None),  # MQIA_ACCOUNTING_Q (words below are left out)
    "MONQ": (123, "IN", None),  # MQIA_MONITORING_Q
}
QUEUE_ROWS: dict[str, Row] = (
    _QUEUE_COMMON
    | _LOCAL_OR_MODEL
    | {
        "TARGET": (2002, "ST", None),  # MQCA_BASE_OBJECT_NAME (QALIAS)
        "RNAME": (2018, "ST", None),  # MQCA_REMOTE_Q_NAME (QREMOTE)
        "RQMNAME": (2017, "ST", None),  # MQCA_REMOTE_Q_MGR_NAME
        "XMITQ": (2024, "ST", None),  # MQCA_XMIT_Q_NAME
    }
)
ATTRIBUTES: Final[dict[str, dict[str, Row]]] = {
    "QLOCAL": QUEUE_ROWS,
    "QMODEL": QUEUE_ROWS,
    "QALIAS": QUEUE_ROWS,
    "QREMOTE": QUEUE_ROWS,
    "NAMELIST": {
        "DESCR": (2009, "ST", None),  # MQCA_NAMELIST_DESC
        "NAMES": (2020, "SL", None),  # MQCA_NAMES
        "NLTYPE": (72, "IN", NLTYPE),  # MQIA_NAMELIST_TYPE
    },
    "PROCESS": {
        "DESCR": (2011, "ST", None),  # MQCA_PROCESS_DESC
        "APPLTYPE": (1, "IN", APPLTYPE),  # MQIA_APPL_TYPE
        "APPLICID": (2001, "ST", None),  # MQCA_APPL_ID
        "ENVRDATA": (2007, "ST", None),  # MQCA_ENV_DATA
        "USERDATA": (2021, "ST", None),  # MQCA_USER_DATA
    },
    "STGCLASS": {
        "DESCR": (2042, "ST", None),  # MQCA_STORAGE_CLASS_DESC
        "PSID": (62, "IN", None),  # MQIA_PAGESET_ID
        "XCFGNAME": (2043, "ST", None),  # MQCA_XCF_GROUP_NAME
        "XCFMNAME": (2044, "ST", None),  # MQCA_XCF_MEMBER_NAME
        "PASSTKTA": (2086, "ST", None),  # MQCA_PASS_TICKET_APPL
    },
    "CHANNEL": {
        "CHLTYPE": (1511, "IN", CHLTYPE),  # MQIACH_CHANNEL_TYPE
        "DESCR": (3502, "ST", None),  # MQCACH_DESC
        "TRPTYPE": (1501, "IN", TRPTYPE),  # MQIACH_XMIT_PROTOCOL_TYPE
        "CONNAME": (3506, "ST", None),  # MQCACH_CONNECTION_NAME
        "XMITQ": (3505, "ST", None),  # MQCACH_XMIT_Q_NAME
        "MCANAME": (3507, "ST", None),  # MQCACH_MCA_NAME
        "MCAUSER": (3527, "ST", None),  # MQCACH_MCA_USER_ID
        "MODENAME": (3503, "ST", None),  # MQCACH_MODE_NAME
        "TPNAME": (3504, "ST", None),  # MQCACH_TP_NAME
        "BATCHSZ": (1502, "IN", None),  # MQIACH_BATCH_SIZE
        "DISCINT": (1503, "IN", None),  # MQIACH_DISC_INTERVAL
        "SHORTTMR": (1504, "IN", None),  # MQIACH_SHORT_TIMER
        "SHORTRTY": (1505, "IN", None),  # MQIACH_SHORT_RETRY
        "LONGTMR": (1506, "IN", None),  # MQIACH_LONG_TIMER
        "LONGRTY": (1507, "IN", None),  # MQIACH_LONG_RETRY
        "PUTAUT": (1508, "IN", PUTAUT),  # MQIACH_PUT_AUTHORITY
        "SEQWRAP": (1509, "IN", None),  # MQIACH_SEQUENCE_NUMBER_WRAP
        "MAXMSGL": (1510, "IN", None),  # MQIACH_MAX_MSG_LENGTH
        "CONVERT": (1515, "IN", CONVERT),  # MQIACH_DATA_CONVERSION
        "NPMSPEED": (1562, "IN", NPMSPEED),  # MQIACH_NPM_SPEED
        "HBINT": (1563, "IN", None),  # MQIACH_HB_INTERVAL
        "BATCHINT": (1564, "IN", None),  # MQIACH_BATCH_INTERVAL
        "BATCHHB": (1567, "IN", None),  # MQIACH_BATCH_HB
        "BATCHLIM": (1624, "IN", None),  # MQIACH_BATCH_DATA_LIMIT
        "MRRTY": (1544, "IN", None),  # MQIACH_MR_COUNT
        "MRTMR": (1545, "IN", None),  # MQIACH_MR_INTERVAL
        "MREXIT": (3534, "ST", None),  # MQCACH_MR_EXIT_NAME
        "MAXINST": (1618, "IN", None),  # MQIACH_MAX_INSTANCES
        "MAXINSTC": (1619, "IN", None),  # MQIACH_MAX_INSTS_PER_CLIENT
        "SHARECNV": (1615, "IN", None),  # MQIACH_SHARING_CONVERSATIONS
        "SSLCIPH": (3544, "ST", None),  # MQCACH_SSL_CIPHER_SPEC
        "SSLPEER": (3545, "ST", None),  # MQCACH_SSL_PEER_NAME
        "LOCLADDR": (3520, "ST", None),  # MQCACH_LOCAL_ADDRESS
        "USERID": (3517, "ST", None),  # MQCACH_USER_ID
    },
    "AUTHINFO": {
        "AUTHTYPE": (66, "IN", AUTHTYPE),  # MQIA_AUTH_INFO_TYPE
        "DESCR": (2046, "ST", None),  # MQCA_AUTH_INFO_DESC
    },
    "TOPIC": {
        "TOPICSTR": (2094, "ST", None),  # MQCA_TOPIC_STRING
        "DESCR": (2093, "ST", None),  # MQCA_TOPIC_DESC
        "DEFPSIST": (185, "IN", TOPIC_PERSIST),  # MQIA_TOPIC_DEF_PERSISTENCE
        "DURSUB": (175, "IN", DURSUB),  # MQIA_DURABLE_SUB
        "PUB": (181, "IN", PUB_SUB),  # MQIA_INHIBIT_PUB
        "SUB": (182, "IN", PUB_SUB),  # MQIA_INHIBIT_SUB
        "MDURMDL": (2096, "ST", None),  # MQCA_MODEL_DURABLE_Q
        "MNDURMDL": (2097, "ST", None),  # MQCA_MODEL_NON_DURABLE_Q
        "CLUSTER": (2029, "ST", None),  # MQCA_CLUSTER_NAME
        "CUSTOM": (2119, "ST", None),  # MQCA_CUSTOM
    },
    # A channel authentication record's attributes are stored under SET CHLAUTH's
    # keywords in lower case (mqtool.engine.security.chlauth.Record).
    CHLAUTH_STORE: {
        "type": (1352, "IN", CHLAUTH_TYPE),  # MQIACF_CHLAUTH_TYPE
        "descr": (2118, "ST", None),  # MQCA_CHLAUTH_DESC
        "address": (3506, "ST", None),  # MQCACH_CONNECTION_NAME
        "addrlist": (3566, "SL", None),  # MQCACH_CONNECTION_NAME_LIST
        "userlist": (3568, "SL", None),  # MQCACH_MCA_USER_ID_LIST
        "sslpeer": (3545, "ST", None),  # MQCACH_SSL_PEER_NAME
        "sslcerti": (3550, "ST", None),  # MQCACH_SSL_CERT_ISSUER_NAME
        "clntuser": (3567, "ST", None),  # MQCACH_CLIENT_USER_ID
        "qmname": (2017, "ST", None),  # MQCA_REMOTE_Q_MGR_NAME
        "usersrc": (1638, "IN", USERSRC),  # MQIACH_USER_SOURCE
        "mcauser": (3527, "ST", None),  # MQCACH_MCA_USER_ID
        "chckclnt": (258, "IN", CHCKCLNT),  # MQIA_CHECK_CLIENT_BINDING
        "warn": (1639, "IN", YES_NO),  # MQIACH_WARNING: MQWARN_YES 1
        "custom": (2119, "ST", None),  # MQCA_CUSTOM
    },
    "QMGR": {
        "DESCR": (2014, "ST", None),  # MQCA_Q_MGR_DESC
        "DEADQ": (2006, "ST", None),  # MQCA_DEAD_LETTER_Q_NAME
        "DEFXMITQ": (2025, "ST", None),  # MQCA_DEF_XMIT_Q_NAME
        "COMMANDQ": (2003, "ST", None),  # MQCA_COMMAND_INPUT_Q_NAME
        "CCSID": (2, "IN", None),  # MQIA_CODED_CHAR_SET_ID
        "CMDLEVEL": (31, "IN", None),  # MQIA_COMMAND_LEVEL
        "MAXPRTY": (14, "IN", None),  # MQIA_MAX_PRIORITY
        "MAXMSGL": (13, "IN", None),  # MQIA_MAX_MSG_LENGTH
        "MAXHANDS": (11, "IN", None),  # MQIA_MAX_HANDLES
        "MAXUMSGS": (33, "IN", None),  # MQIA_MAX_UNCOMMITTED_MSGS
        "EXPRYINT": (39, "IN", {"OFF": 0}),  # MQIA_EXPIRY_INTERVAL (a number of seconds, or OFF: 0)
        "TRIGINT": (25, "IN", None),  # MQIA_TRIGGER_INTERVAL
        "AUTHOREV": (47, "IN", EVENT),  # MQIA_AUTHORITY_EVENT
        "INHIBTEV": (48, "IN", EVENT),  # MQIA_INHIBIT_EVENT
        "LOCALEV": (49, "IN", EVENT),  # MQIA_LOCAL_EVENT
        "REMOTEEV": (50, "IN", EVENT),  # MQIA_REMOTE_EVENT
        "CONFIGEV": (51, "IN", EVENT),  # MQIA_CONFIGURATION_EVENT
        "STRSTPEV": (52, "IN", EVENT),  # MQIA_START_STOP_EVENT
        "PERFMEV": (53, "IN", EVENT),  # MQIA_PERFORMANCE_EVENT
        "CHLEV": (73, "IN", EVENT),  # MQIA_CHANNEL_EVENT
        "BRIDGEEV": (74, "IN", EVENT),  # MQIA_BRIDGE_EVENT
        "SSLEV": (75, "IN", EVENT),  # MQIA_SSL_EVENT
        "CMDEV": (99, "IN", EVENT),  # MQIA_COMMAND_EVENT
        "CLUSTER": (2029, "ST", None),
        "CUSTOM": (2119, "ST", None),  # MQCA_CUSTOM
    },
}
