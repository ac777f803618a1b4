/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "roce-chakra-trace.h"

#include "roce-chakra-et.pb.h"

#include "ns3/roce-error.h"

#include <fstream>
#include <sstream>

namespace ns3
{

namespace
{

namespace pb = rocev2::chakra;

/** A read error: the message, ready for the caller. */
struct ChakraError
{
    std::string text; //!< the full message
};

/**
 * \param l a repeated field
 * \return its values in string form, "[a, b, c]"
 */
template <typename List>
std::string
ListString(const List& l)
{
    std::ostringstream os;
    os << '[';
    for (int i = 0; i < l.values_size(); ++i)
    {
        os << (i ? ", " : "") << l.values(i);
    }
    os << ']';
    return os.str();
}

/**
 * \param a an attribute
 * \return its value (lists in string form)
 */
RoceChakraValue
AttributeValue(const pb::AttributeProto& a)
{
    using A = pb::AttributeProto;
    switch (a.value_case())
    {
    case A::kDoubleVal:
        return a.double_val();
    case A::kFloatVal:
        return static_cast<double>(a.float_val());
    case A::kInt32Val:
        return static_cast<int64_t>(a.int32_val());
    case A::kInt64Val:
        return static_cast<int64_t>(a.int64_val());
    case A::kUint32Val:
        return static_cast<uint64_t>(a.uint32_val());
    case A::kUint64Val:
        return static_cast<uint64_t>(a.uint64_val());
    case A::kSint32Val:
        return static_cast<int64_t>(a.sint32_val());
    case A::kSint64Val:
        return static_cast<int64_t>(a.sint64_val());
    case A::kFixed32Val:
        return static_cast<uint64_t>(a.fixed32_val());
    case A::kFixed64Val:
        return static_cast<uint64_t>(a.fixed64_val());
    case A::kSfixed32Val:
        return static_cast<int64_t>(a.sfixed32_val());
    case A::kSfixed64Val:
        return static_cast<int64_t>(a.sfixed64_val());
    case A::kBoolVal:
        return a.bool_val();
    case A::kStringVal:
        return a.string_val();
    case A::kBytesVal:
        return a.bytes_val();
    case A::kDoubleList:
        return ListString(a.double_list());
    case A::kFloatList:
        return ListString(a.float_list());
    case A::kInt32List:
        return ListString(a.int32_list());
    case A::kInt64List:
        return ListString(a.int64_list());
    case A::kUint32List:
        return ListString(a.uint32_list());
    case A::kUint64List:
        return ListString(a.uint64_list());
    case A::kSint32List:
        return ListString(a.sint32_list());
    case A::kSint64List:
        return ListString(a.sint64_list());
    case A::kFixed32List:
        return ListString(a.fixed32_list());
    case A::kFixed64List:
        return ListString(a.fixed64_list());
    case A::kSfixed32List:
        return ListString(a.sfixed32_list());
    case A::kSfixed64List:
        return ListString(a.sfixed64_list());
    case A::kBoolList:
        return ListString(a.bool_list());
    case A::kStringList:
        return ListString(a.string_list());
    case A::kBytesList:
        return ListString(a.bytes_list());
    case A::VALUE_NOT_SET:
        break;
    }
    return std::string();
}

/**
 * \param v an attribute value
 * \return its kind in words, for error messages
 */
const char*
KindName(const RoceChakraValue& v)
{
    static const char* const names[] = {"a bool",
                                        "a signed integer",
                                        "an unsigned integer",
                                        "a floating-point number",
                                        "a string"};
    return names[v.index()];
}

/**
 * \param v an attribute value
 * \param out set to the value if it is an integer or a bool
 * \return false if the value is not an integer
 */
bool
IntegerValue(const RoceChakraValue& v, int64_t& out)
{
    if (const auto* i = std::get_if<int64_t>(&v))
    {
        out = *i;
        return true;
    }
    if (const auto* u = std::get_if<uint64_t>(&v))
    {
        out = static_cast<int64_t>(*u);
        return true;
    }
    return false;
}

/** Reads one file; every error throws ChakraError with its full message. */
class ChakraReader
{
  public:
    /**
     * \param path the file
     * \param trace the trace to fill
     * \param strictCtrlDeps whether a control dependency on an absent id is an error
     */
    ChakraReader(const std::string& path, RoceChakraTrace& trace, bool strictCtrlDeps)
        : m_path(path),
          m_trace(trace),
          m_strictCtrlDeps(strictCtrlDeps)
    {
    }

    /** Read the whole file into the trace. */
    void Run();

  private:
    /**
     * \param what the message
     * \return never: throws with the file, the message's place and what
     */
    [[noreturn]] void Fail(const std::string& what) const;

    /**
     * Read the next message's bytes.
     * \param buf set to the message bytes
     * \return false at a clean end of the file
     */
    bool NextMessage(std::string& buf);

    /**
     * \param n the node as parsed
     * \param node set to the node
     */
    void Convert(const pb::Node& n, RoceChakraNode& node) const;

    /**
     * Check that every data dependency names a node of the file; move control
     * dependencies on absent ids to unresolvedCtrlDeps (or fail if strict).
     */
    void CheckDependencies();

    std::string m_path;          //!< the file
    RoceChakraTrace& m_trace;    //!< the trace being filled
    bool m_strictCtrlDeps;       //!< a control dependency on an absent id is an error
    std::ifstream m_in;          //!< the file's stream
    uint64_t m_size{0};          //!< the file's size in bytes
    uint64_t m_offset{0};        //!< byte offset of the next unread byte
    uint64_t m_msgOffset{0};     //!< byte offset of the current message's length prefix
    int64_t m_node{-1};          //!< index of the current node, -1 for the metadata
    std::vector<uint64_t> m_pos; //!< byte offset of each node's length prefix
};

void
ChakraReader::Fail(const std::string& what) const
{
    std::ostringstream os;
    os << m_path << ": ";
    if (m_node < 0)
    {
        os << "metadata";
    }
    else
    {
        os << "node " << m_node;
    }
    os << " at byte offset " << m_msgOffset << ": " << what;
    throw ChakraError{os.str()};
}

bool
ChakraReader::NextMessage(std::string& buf)
{
    m_msgOffset = m_offset;
    uint64_t len = 0;
    int shift = 0;
    for (;;)
    {
        const int c = m_in.get();
        if (c == std::char_traits<char>::eof())
        {
            if (m_offset == m_msgOffset && m_node >= 0)
            {
                return false; // a clean end between two messages
            }
            Fail(m_offset == m_msgOffset ? "empty file: no GlobalMetadata"
                                         : "truncated length varint (file ends at byte " +
                                               std::to_string(m_size) + ")");
        }
        ++m_offset;
        if (shift > 63)
        {
            Fail("length varint longer than 10 bytes");
        }
        len |= static_cast<uint64_t>(c & 0x7f) << shift;
        shift += 7;
        if ((c & 0x80) == 0)
        {
            break;
        }
    }
    if (len > m_size - m_offset)
    {
        Fail("message length " + std::to_string(len) + " at byte " + std::to_string(m_offset) +
             " runs past the end of the file (" + std::to_string(m_size) + " bytes)");
    }
    buf.resize(len);
    if (len > 0 && !m_in.read(&buf[0], static_cast<std::streamsize>(len)))
    {
        Fail("cannot read " + std::to_string(len) + " bytes");
    }
    m_offset += len;
    return true;
}

void
ChakraReader::Convert(const pb::Node& n, RoceChakraNode& node) const
{
    node.id = n.id();
    node.name = n.name();
    if (n.type() < 0 || n.type() >= RoceChakraNode::TYPE_COUNT)
    {
        Fail("node id " + std::to_string(n.id()) + " has unknown node type " +
             std::to_string(n.type()) + " (known: 0..7)");
    }
    node.type = static_cast<RoceChakraNode::Type>(n.type());
    node.ctrlDeps.assign(n.ctrl_deps().begin(), n.ctrl_deps().end());
    node.dataDeps.assign(n.data_deps().begin(), n.data_deps().end());
    node.startMicros = n.start_time_micros();
    node.durationMicros = n.duration_micros();
    node.attrs.reserve(n.attr_size());
    for (const auto& a : n.attr())
    {
        RoceChakraValue v = AttributeValue(a);
        const std::string& name = a.name();
        auto wrongKind = [&](const char* expected) {
            Fail("node id " + std::to_string(n.id()) + ": attribute '" + name + "' is " +
                 KindName(v) + ", expected " + expected);
        };
        int64_t i = 0;
        if (name == "is_cpu_op")
        {
            if (const auto* b = std::get_if<bool>(&v))
            {
                node.isCpuOp = *b;
            }
            else if (IntegerValue(v, i))
            {
                node.isCpuOp = i != 0;
            }
            else
            {
                wrongKind("a bool");
            }
        }
        else if (name == "comm_type" || name == "comm_size" || name == "comm_src" ||
                 name == "comm_dst" || name == "comm_tag")
        {
            if (!IntegerValue(v, i))
            {
                wrongKind("an integer");
            }
            if (name == "comm_type")
            {
                node.commType = i;
            }
            else if (name == "comm_size")
            {
                node.commSize = i;
            }
            else if (name == "comm_src")
            {
                node.commSrc = static_cast<int32_t>(i);
            }
            else if (name == "comm_dst")
            {
                node.commDst = static_cast<int32_t>(i);
            }
            else
            {
                node.commTag = static_cast<int32_t>(i);
            }
        }
        else if (name == "pg_name")
        {
            const auto* s = std::get_if<std::string>(&v);
            if (s == nullptr)
            {
                wrongKind("a string");
            }
            node.pgName = *s;
        }
        node.attrs.emplace_back(name, std::move(v));
    }
}

void
ChakraReader::CheckDependencies()
{
    for (std::size_t k = 0; k < m_trace.nodes.size(); ++k)
    {
        RoceChakraNode& node = m_trace.nodes[k];
        auto fail = [&](const char* kind, uint64_t dep) {
            m_node = static_cast<int64_t>(k);
            m_msgOffset = m_pos[k];
            Fail("node id " + std::to_string(node.id) + " has a " + kind +
                 " dependency on node id " + std::to_string(dep) + ", which is not in the file");
        };
        for (uint64_t dep : node.dataDeps)
        {
            if (m_trace.IndexOf(dep) == RoceChakraTrace::NPOS)
            {
                fail("data", dep);
            }
        }
        std::size_t kept = 0;
        for (uint64_t dep : node.ctrlDeps)
        {
            if (m_trace.IndexOf(dep) != RoceChakraTrace::NPOS)
            {
                node.ctrlDeps[kept++] = dep;
            }
            else if (m_strictCtrlDeps)
            {
                fail("control", dep);
            }
            else
            {
                node.unresolvedCtrlDeps.push_back(dep);
                ++m_trace.unresolvedCtrlDeps;
            }
        }
        node.ctrlDeps.resize(kept);
    }
}

void
ChakraReader::Run()
{
    m_in.open(m_path, std::ios::binary);
    if (!m_in)
    {
        throw ChakraError{m_path + ": cannot be read"};
    }
    m_in.seekg(0, std::ios::end);
    m_size = static_cast<uint64_t>(m_in.tellg());
    m_in.seekg(0, std::ios::beg);

    std::string buf;
    NextMessage(buf);
    pb::GlobalMetadata meta;
    if (!meta.ParseFromString(buf))
    {
        Fail("not a valid GlobalMetadata message (" + std::to_string(buf.size()) + " bytes)");
    }
    m_trace.version = meta.version();
    for (const auto& a : meta.attr())
    {
        m_trace.attrs.emplace_back(a.name(), AttributeValue(a));
    }

    pb::Node n;
    m_node = 0;
    while (NextMessage(buf))
    {
        if (!n.ParseFromString(buf))
        {
            Fail("not a valid Node message (" + std::to_string(buf.size()) + " bytes)");
        }
        RoceChakraNode node;
        Convert(n, node);
        const std::size_t index = m_trace.nodes.size();
        if (!m_trace.AddNode(std::move(node)))
        {
            Fail("duplicate node id " + std::to_string(n.id()) + " (first at node " +
                 std::to_string(m_trace.IndexOf(n.id())) + ")");
        }
        m_pos.push_back(m_msgOffset);
        m_node = static_cast<int64_t>(index + 1);
    }
    CheckDependencies();
}

} // namespace

const RoceChakraValue*
RoceChakraNode::FindAttribute(const std::string& attrName) const
{
    for (const auto& a : attrs)
    {
        if (a.first == attrName)
        {
            return &a.second;
        }
    }
    return nullptr;
}

std::string
RoceChakraNode::TypeName(Type t)
{
    static const char* const names[TYPE_COUNT] = {"INVALID_NODE",
                                                  "METADATA_NODE",
                                                  "MEM_LOAD_NODE",
                                                  "MEM_STORE_NODE",
                                                  "COMP_NODE",
                                                  "COMM_SEND_NODE",
                                                  "COMM_RECV_NODE",
                                                  "COMM_COLL_NODE"};
    return t < TYPE_COUNT ? names[t] : "UNKNOWN(" + std::to_string(t) + ")";
}

std::string
RoceChakraNode::CommTypeName(int64_t c)
{
    static const char* const names[] = {"ALL_REDUCE",
                                        "REDUCE",
                                        "ALL_GATHER",
                                        "GATHER",
                                        "SCATTER",
                                        "BROADCAST",
                                        "ALL_TO_ALL",
                                        "REDUCE_SCATTER",
                                        "REDUCE_SCATTER_BLOCK",
                                        "BARRIER"};
    return c >= 0 && c <= BARRIER ? names[c] : "UNKNOWN(" + std::to_string(c) + ")";
}

RoceChakraTrace
RoceChakraTrace::Read(const std::string& path)
{
    RoceChakraTrace trace;
    std::string error;
    ROCE_ERROR_IF(!Read(path, trace, &error), error);
    return trace;
}

bool
RoceChakraTrace::Read(const std::string& path,
                      RoceChakraTrace& trace,
                      std::string* error,
                      bool strictCtrlDeps)
{
    RoceChakraTrace t;
    try
    {
        ChakraReader(path, t, strictCtrlDeps).Run();
    }
    catch (const ChakraError& e)
    {
        if (error != nullptr)
        {
            *error = e.text;
        }
        return false;
    }
    trace = std::move(t);
    return true;
}

bool
RoceChakraTrace::AddNode(RoceChakraNode&& node)
{
    if (!m_index.emplace(node.id, nodes.size()).second)
    {
        return false;
    }
    nodes.push_back(std::move(node));
    return true;
}

std::size_t
RoceChakraTrace::IndexOf(uint64_t id) const
{
    auto it = m_index.find(id);
    return it == m_index.end() ? NPOS : it->second;
}

const RoceChakraNode*
RoceChakraTrace::Find(uint64_t id) const
{
    std::size_t k = IndexOf(id);
    return k == NPOS ? nullptr : &nodes[k];
}

std::size_t
RoceChakraTrace::CountType(RoceChakraNode::Type t) const
{
    std::size_t count = 0;
    for (const auto& n : nodes)
    {
        count += n.type == t ? 1 : 0;
    }
    return count;
}

} // namespace ns3
