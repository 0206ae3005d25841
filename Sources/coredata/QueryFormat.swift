import Foundation

/// A fetched object as `coredata query` prints it: its ID (URI), its entity's name, and one value per field.
struct QueryRow {
    let objectID: String
    let entity: String
    let values: [FieldValue]
}

/// `coredata query --format`: how the fetched objects are written to standard output. Every format shows
/// values by `FieldValue`'s rules.
///
/// - `table` (for people): a header, aligned columns, values longer than `cellWidth` cut with "…", object
///   IDs as `Entity/pN`, and a last line counting the objects.
/// - `json`: one JSON array whose elements are the objects, one per line.
/// - `jsonl`: one JSON object per line (JSON Lines), nothing else.
/// - `csv`: RFC 4180: a header line, then one record per object, lines ended by CRLF, a field quoted when
///   it holds a comma, a quote or a line break (quotes doubled); nil is an empty field.
///
/// In `json`, `jsonl` and `csv`, an object has `objectID` (its URI) and `entity` before its fields.
enum QueryFormat: String, CaseIterable {
    case table, json, jsonl, csv

    /// The widest a table cell gets, in characters.
    static let cellWidth = 40

    /// The whole output for `rows`, whose values are those of `fields`; `footer` ends a table.
    func render(_ rows: [QueryRow], fields: [String], footer: String) -> String {
        switch self {
        case .table: return Self.table(rows, fields: fields, footer: footer)
        case .json: return rows.isEmpty ? "[]\n" : "[\n" + rows.map { "  " + Self.jsonObject($0, fields: fields) }.joined(separator: ",\n") + "\n]\n"
        case .jsonl: return rows.map { Self.jsonObject($0, fields: fields) + "\n" }.joined()
        case .csv: return Self.csv(rows, fields: fields)
        }
    }

    /// `{"objectID": …, "entity": …, <field>: …}` in that order, compact.
    static func jsonObject(_ row: QueryRow, fields: [String]) -> String {
        FieldValue.object([("objectID", .objectID(row.objectID)), ("entity", .string(row.entity))] + Array(zip(fields, row.values))).json
    }

    static func csv(_ rows: [QueryRow], fields: [String]) -> String {
        let header = (["objectID", "entity"] + fields).map(csvField)
        let records = rows.map { row in
            ([row.objectID, row.entity] + row.values.map { $0.cell(shortIDs: false) }).map(csvField)
        }
        return ([header] + records).map { $0.joined(separator: ",") + "\r\n" }.joined()
    }

    /// A CSV field, quoted (and its quotes doubled) when it holds a comma, a quote, CR or LF.
    static func csvField(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\r" || $0 == "\n" || $0 == "\r\n" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    static func table(_ rows: [QueryRow], fields: [String], footer: String) -> String {
        let header = ["objectID"] + fields
        let cells = rows.map { row in
            ([FieldValue.shortID(row.objectID)] + row.values.map { $0.cell(shortIDs: true) }).map(tableCell)
        }
        let widths = header.indices.map { column in ([header] + cells).map { $0[column].count }.max() ?? 0 }
        // Columns padded to their widths, by characters; no spaces at the end of a line.
        func line(_ items: [String]) -> String {
            var text = items.enumerated().map { column, cell in cell + String(repeating: " ", count: widths[column] - cell.count) }
                .joined(separator: "  ")
            while text.last == " " { text.removeLast() }
            return text
        }
        let rule = widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")
        return ([line(header), rule] + cells.map(line) + [footer]).joined(separator: "\n") + "\n"
    }

    /// A table cell on one line: control characters escaped, cut to `cellWidth` with "…".
    static func tableCell(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "\n", "\r\n": escaped += "\\n"
            case "\r": escaped += "\\r"
            case "\t": escaped += "\\t"
            default: escaped.append(character)
            }
        }
        return escaped.count > cellWidth ? String(escaped.prefix(cellWidth - 1)) + "…" : escaped
    }
}
