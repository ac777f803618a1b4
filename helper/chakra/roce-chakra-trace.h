/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef ROCE_CHAKRA_TRACE_H
#define ROCE_CHAKRA_TRACE_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

namespace ns3
{

/**
 * \ingroup rocev2
 * The value of one attribute of a Chakra node: a bool, a signed or unsigned
 * integer, a floating-point number or a string. Lists and bytes are kept in
 * string form ("[1, 2, 3]"; bytes as they are).
 */
using RoceChakraValue = std::variant<bool, int64_t, uint64_t, double, std::string>;

/**
 * \ingroup rocev2
 * \brief One node of a Chakra execution trace: a compute, memory or
 * communication step of one rank, with the nodes it depends on.
 *
 * The attributes that replay reads are decoded into fields; every attribute,
 * these included, is also kept by name in file order (attrs, FindAttribute).
 */
struct RoceChakraNode
{
    /** Node types, with the values of the ET format. */
    enum Type : uint8_t
    {
        INVALID = 0,   //!< invalid node
        METADATA = 1,  //!< metadata node
        MEM_LOAD = 2,  //!< memory load
        MEM_STORE = 3, //!< memory store
        COMP = 4,      //!< computation (a CPU operator or a GPU kernel)
        COMM_SEND = 5, //!< point-to-point send
        COMM_RECV = 6, //!< point-to-point receive
        COMM_COLL = 7, //!< collective communication
    };

    /** The number of node types (values 0 .. TYPE_COUNT - 1). */
    static constexpr int TYPE_COUNT = 8;

    /** Collective types (the comm_type attribute), with the values of the ET format. */
    enum CommType : int64_t
    {
        ALL_REDUCE = 0,           //!< AllReduce
        REDUCE = 1,               //!< Reduce
        ALL_GATHER = 2,           //!< AllGather
        GATHER = 3,               //!< Gather
        SCATTER = 4,              //!< Scatter
        BROADCAST = 5,            //!< Broadcast
        ALL_TO_ALL = 6,           //!< AllToAll
        REDUCE_SCATTER = 7,       //!< ReduceScatter
        REDUCE_SCATTER_BLOCK = 8, //!< ReduceScatter, block variant
        BARRIER = 9,              //!< Barrier
    };

    uint64_t id{0};                 //!< node id, unique in its file
    std::string name;               //!< operator or kernel name
    Type type{INVALID};             //!< node type
    std::vector<uint64_t> ctrlDeps; //!< ids of the nodes this one waits for (control)
    std::vector<uint64_t> dataDeps; //!< ids of the nodes whose data this one uses
    /** control dependencies on ids that are not in the file (left out of ctrlDeps) */
    std::vector<uint64_t> unresolvedCtrlDeps;
    uint64_t startMicros{0};    //!< start time in the profiled run, in µs
    uint64_t durationMicros{0}; //!< duration in the profiled run, in µs
    bool isCpuOp{false};        //!< is_cpu_op: a CPU-side node (false if absent)
    int64_t commType{-1};       //!< comm_type (a CommType value), -1 if absent
    int64_t commSize{-1};       //!< comm_size in bytes, -1 if absent
    int32_t commSrc{-1};        //!< comm_src rank, -1 if absent
    int32_t commDst{-1};        //!< comm_dst rank, -1 if absent
    int32_t commTag{-1};        //!< comm_tag, -1 if absent
    std::string pgName;         //!< pg_name (process group), empty if absent
    /** every attribute of the node, in file order (name, value) */
    std::vector<std::pair<std::string, RoceChakraValue>> attrs;

    /**
     * \param attrName an attribute name
     * \return the attribute's value, or nullptr if the node has none of that name
     */
    const RoceChakraValue* FindAttribute(const std::string& attrName) const;

    /**
     * \param t a node type
     * \return its name in the ET format ("COMP_NODE", ...)
     */
    static std::string TypeName(Type t);

    /**
     * \param c a comm_type value
     * \return its name ("ALL_REDUCE", ...), or "UNKNOWN(<c>)"
     */
    static std::string CommTypeName(int64_t c);
};

/**
 * \ingroup rocev2
 * \brief The Chakra execution trace (ET) of one rank, read from its file.
 *
 * A file is a stream of protobuf messages, each preceded by its length as a
 * varint: a GlobalMetadata, then the Nodes. Read() decodes it with the
 * module's own message definitions (helper/chakra/roce-chakra-et.proto); protobuf
 * types stay out of this interface.
 *
 * Read errors name the file, the node index (0-based, in file order; the
 * metadata message is "metadata") and the byte offset of the message's length
 * prefix: a truncated length varint, a length past the end of the file, a
 * message protobuf cannot parse, an unknown node type, a duplicate node id, an
 * attribute that replay reads given with a value of the wrong kind, and a
 * data dependency on a node id that is not in the file.
 *
 * Control dependencies on absent ids are not an error by default: traces
 * converted from PyTorch hold them (the converter leaves out the parent
 * operators that they name). They are moved from ctrlDeps to
 * unresolvedCtrlDeps and counted in unresolvedCtrlDeps; with strictCtrlDeps
 * they are errors like data dependencies.
 *
 * The standalone build only: it needs protobuf (doc/rocev2.rst).
 */
struct RoceChakraTrace
{
    std::string version; //!< GlobalMetadata version
    /** the GlobalMetadata attributes, in file order (name, value) */
    std::vector<std::pair<std::string, RoceChakraValue>> attrs;
    std::vector<RoceChakraNode> nodes; //!< the nodes, in file order
    /** the number of control dependencies on ids not in the file, over all nodes */
    std::size_t unresolvedCtrlDeps{0};

    /**
     * Read a trace; a malformed file is an error (RoceError).
     * \param path the .et file
     * \return the trace
     */
    static RoceChakraTrace Read(const std::string& path);

    /**
     * Read a trace without aborting.
     * \param path the .et file
     * \param trace set to the trace if the file is valid
     * \param error if not null, set to the error message when the file is not valid
     * \param strictCtrlDeps if true, a control dependency on an absent id is an error
     * \return true if the file is valid
     */
    static bool Read(const std::string& path,
                     RoceChakraTrace& trace,
                     std::string* error,
                     bool strictCtrlDeps = false);

    /** The index returned by IndexOf for an id that is not in the trace. */
    static constexpr std::size_t NPOS = static_cast<std::size_t>(-1);

    /**
     * \param id a node id
     * \return the index of that node in nodes, or NPOS
     */
    std::size_t IndexOf(uint64_t id) const;

    /**
     * \param id a node id
     * \return the node of that id, or nullptr
     */
    const RoceChakraNode* Find(uint64_t id) const;

    /**
     * \param t a node type
     * \return the number of nodes of that type
     */
    std::size_t CountType(RoceChakraNode::Type t) const;

    /**
     * Append a node and index it by id.
     * \param node the node
     * \return false (and nothing appended) if a node of that id is already there
     */
    bool AddNode(RoceChakraNode&& node);

  private:
    std::unordered_map<uint64_t, std::size_t> m_index; //!< node id -> index in nodes
};

} // namespace ns3

#endif /* ROCE_CHAKRA_TRACE_H */
