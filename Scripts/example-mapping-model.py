#!/usr/bin/env python3
"""Writes Examples/MappingModelExample/NotesV1toV2.xcmappingmodel/xcmapping.xml.

Xcode, which makes mapping models, does not run on Linux, so the example's mapping model is written by this
script in the form Xcode saves one (read off the fixtures' .xcmappingmodel packages, see
Docs/Migration.md): an XML store of Xcode's XDDEVMAPPINGMODEL, XDDEVENTITYMAPPING, XDDEVATTRIBUTEMAPPING and
XDDEVRELATIONSHIPMAPPING objects, the source and destination models embedded as Xcode 3 `elements` archives
(XDPMModel, XDPMEntity, XDPMAttribute, XDPMRelationship with their stereotypes), and custom value expressions
as archived NSExpressions. It writes only what Xcode's compiler reads.

The mapping takes Notes.xcdatamodeld's version "Notes" to "Notes 2": Folder is copied, and Note's `text`
becomes `body` (a rename without a renaming identifier, which lightweight migration cannot infer). Run it
again after changing either model version, from the package's folder:

    python3 Scripts/example-mapping-model.py
"""
import base64
import os
import plistlib
from plistlib import UID

STRING, BOOLEAN = 700, 800  # NSAttributeType raw values
NULLIFY = 1                 # NSDeleteRule raw value

# The two model versions, as their .xcdatamodel files declare them: attributes (name, type, optional) and
# relationships (name, destination, inverse, to-many).
FOLDER = {"attributes": [("name", STRING, True)], "relationships": [("notes", "Note", "folder", True)]}
SOURCE = {
    "Folder": FOLDER,
    "Note": {"attributes": [("text", STRING, True), ("title", STRING, True)],
             "relationships": [("folder", "Folder", "notes", False)]},
}
DESTINATION = {
    "Folder": FOLDER,
    "Note": {"attributes": [("body", STRING, True), ("pinned", BOOLEAN, False, "NO"), ("title", STRING, True)],
             "relationships": [("folder", "Folder", "notes", False)]},
}


class KeyedArchive:
    """An NSKeyedArchiver archive being built: `$null` first, the root object at 1, classes shared by name."""

    def __init__(self):
        self.objects = ["$null"]
        self.classes = {}

    def reserve(self):
        self.objects.append(None)
        return UID(len(self.objects) - 1)

    def fill(self, slot, class_name, chain, fields):
        if class_name not in self.classes:
            self.objects.append({"$classname": class_name, "$classes": [class_name] + chain + ["NSObject"]})
            self.classes[class_name] = UID(len(self.objects) - 1)
        self.objects[slot.data] = dict(fields, **{"$class": self.classes[class_name]})
        return slot

    def object(self, class_name, chain, fields):
        return self.fill(self.reserve(), class_name, chain, fields)

    def string(self, text):
        self.objects.append(text)
        return UID(len(self.objects) - 1)

    def dictionary(self, pairs):
        return self.object("NSMutableDictionary", ["NSDictionary"], {
            "NS.keys": [self.string(key) for key, _ in pairs], "NS.objects": [value for _, value in pairs]})

    def array(self, items):
        return self.object("NSMutableArray", ["NSArray"], {"NS.objects": items})

    def data(self):
        return plistlib.dumps({"$version": 100000, "$archiver": "NSKeyedArchiver", "$top": {"root": UID(1)},
                               "$objects": self.objects}, fmt=plistlib.FMT_BINARY, sort_keys=True)


ELEMENT = ["XDUMLNamedElementImp", "XDUMLElementImp"]
CLASS = ["XDUMLClassImp", "XDUMLClassifierImp", "XDUMLNamespaceImp"] + ELEMENT


def stereotype(archive, values):
    """Xcode's stereotype: its values as XDUMLPropertyImp `_default`s, by key."""
    properties = [(key, archive.object("XDUMLPropertyImp", ELEMENT, {"_default": value})) for key, value in values]
    return archive.object("XDUMLStereotypeImp", CLASS, {"XDBucketForOwnedAttributesstorage": archive.dictionary(properties)})


def stereotypes(archive, named):
    return archive.dictionary([(name, stereotype(archive, values)) for name, values in named])


def embedded_model(entities, identifier):
    """The Xcode 3 `elements` archive of a model with `entities`."""
    archive = KeyedArchive()
    root = archive.reserve()
    entity_slots = {name: archive.reserve() for name in sorted(entities)}
    relationship_slots = {(name, rel[0]): archive.reserve() for name, entity in entities.items() for rel in entity["relationships"]}
    for name in sorted(entities):
        entity = entities[name]
        owned = []
        for attribute in entity["attributes"]:
            attribute_name, attribute_type, optional = attribute[:3]
            default = attribute[3] if len(attribute) > 3 else None
            attribute_values = [("XD_PAttK_attributeType", attribute_type)]
            if default is not None:
                attribute_values.append(("XD_PAttK_defaultValueAsString", archive.string(default)))
            owned.append((attribute_name, archive.object("XDPMAttribute", ["XDPMProperty", "XDUMLPropertyImp"] + ELEMENT, {
                "_name": archive.string(attribute_name), "_owner": entity_slots[name],
                "XDBucketForStereotypesstorage": stereotypes(archive, [
                    ("XD_PPropStereotype", [("XD_PPSK_isOptional", optional), ("XD_PPSK_isTransient", False), ("XD_PPSK_isIndexed", False)]),
                    ("XD_PAtt_Stereotype", attribute_values)])})))
        for relationship_name, destination, inverse, to_many in entity["relationships"]:
            slot = relationship_slots[(name, relationship_name)]
            archive.fill(slot, "XDPMRelationship", ["XDPMProperty", "XDUMLPropertyImp"] + ELEMENT, {
                "_name": archive.string(relationship_name), "_owner": entity_slots[name],
                "XDBucketForStereotypesstorage": stereotypes(archive, [
                    ("XD_PPropStereotype", [("XD_PPSK_isOptional", True), ("XD_PPSK_isTransient", False), ("XD_PPSK_isIndexed", False)]),
                    ("XD_PR_Stereotype", [("XD_PRK_destination", entity_slots[destination]),
                                          ("XD_PRK_inverseRelationship", relationship_slots[(destination, inverse)]),
                                          ("XD_PRK_isToMany", to_many), ("XD_PRK_minCount", 0),
                                          ("XD_PRK_maxCount", 0 if to_many else 1), ("XD_PRK_deleteRule", NULLIFY)])])})
            owned.append((relationship_name, slot))
        archive.fill(entity_slots[name], "XDPMEntity", CLASS, {
            "_name": archive.string(name), "_isAbstract": False,
            "XDBucketForOwnedAttributesstorage": archive.dictionary(sorted(owned)),
            "XDBucketForStereotypesstorage": stereotypes(archive, [
                ("XD_PStereotype", [("XD_PSK_entityClassName", archive.string("NSManagedObject")), ("XD_PSK_isAbstract", False)])])})
    package = archive.object("XDModelPackage", ["XDUMLPackageImp", "XDUMLNamespaceImp"] + ELEMENT, {
        "XDBucketForClassesstorage": archive.dictionary([(name, entity_slots[name]) for name in sorted(entities)])})
    archive.fill(root, "XDPMModel", ["XDModel"], {"_xd_rootPackage": package, "_modelVersionIdentifier": archive.string(identifier)})
    return archive.data()


def source_key_path(key):
    """The archived NSExpression `$source.<key>`, as Xcode keeps a custom value expression."""
    archive = KeyedArchive()
    root = archive.reserve()
    variable = archive.object("NSVariableExpression", ["NSExpression"], {"NSVariable": archive.string("source"), "NSExpressionType": 2})
    specifier = archive.object("NSKeyPathSpecifierExpression", ["NSExpression"], {"NSKeyPath": archive.string(key), "NSExpressionType": 10})
    archive.fill(root, "NSKeyPathExpression", ["NSFunctionExpression", "NSExpression"], {
        "NSOperand": variable, "NSSelectorName": archive.string("valueForKeyPath:"), "NSExpressionType": 4,
        "NSArguments": archive.array([specifier])})
    return archive.data()


def xml_store(objects):
    """An XML store file holding `objects`: (id, type, attributes [(name, type, text)], relationships [(name, kind, type, ids)])."""
    lines = ['<?xml version="1.0" standalone="yes"?>', '<!DOCTYPE database SYSTEM "file:///System/Library/DTDs/CoreData.dtd">', "",
             "<database>", "    <databaseInfo>", "        <version>134481920</version>",
             "        <UUID>6E0C1A52-3D2B-4B7E-9C1F-0A3F5E2B7D41</UUID>", f"        <nextObjectID>{max(o[0] for o in objects) + 1}</nextObjectID>",
             "        <metadata>", '            <plist version="1.0">', "                <dict>",
             "                    <key>NSPersistenceFrameworkVersion</key>", "                    <integer>1044</integer>",
             "                </dict>", "            </plist>", "        </metadata>", "    </databaseInfo>"]
    for identifier, kind, attributes, relationships in objects:
        lines.append(f'    <object type="{kind}" id="z{identifier}">')
        for name, value_type, text in attributes:
            lines.append(f'        <attribute name="{name}" type="{value_type}">{text}</attribute>')
        for name, arity, destination, ids in relationships:
            refs = f' idrefs="{" ".join(f"z{i}" for i in ids)}"' if ids else ""
            lines.append(f'        <relationship name="{name}" type="{arity}" destination="{destination}"{refs}></relationship>')
        lines.append("    </object>")
    lines.append("</database>")
    return "\n".join(lines) + "\n"


def mapping_objects():
    model, folder, note = 101, 102, 103
    attribute = lambda identifier, name, owner, expression=None: (identifier, "XDDEVATTRIBUTEMAPPING",
        [("name", "string", name)] + ([("valueexpressiondata", "binary", base64.b64encode(expression).decode())] if expression else []),
        [("entitymapping", "1/1", "XDDEVENTITYMAPPING", [owner])])
    relationship = lambda identifier, name, owner: (identifier, "XDDEVRELATIONSHIPMAPPING", [("name", "string", name)],
        [("entitymapping", "1/1", "XDDEVENTITYMAPPING", [owner])])
    entity = lambda identifier, name, number, attributes, relationships: (identifier, "XDDEVENTITYMAPPING",
        [("sourcename", "string", name), ("destinationname", "string", name), ("mappingtypename", "string", "Undefined"),
         ("mappingnumber", "int16", str(number)), ("autogenerateexpression", "bool", "1")],
        [("mappingmodel", "1/1", "XDDEVMAPPINGMODEL", [model]),
         ("attributemappings", "0/0", "XDDEVATTRIBUTEMAPPING", attributes),
         ("relationshipmappings", "0/0", "XDDEVRELATIONSHIPMAPPING", relationships)])
    return [
        (model, "XDDEVMAPPINGMODEL", [
            ("sourcemodelpath", "string", "Notes.xcdatamodeld/Notes.xcdatamodel"),
            ("sourcemodeldata", "binary", base64.b64encode(embedded_model(SOURCE, "1")).decode()),
            ("destinationmodelpath", "string", "Notes.xcdatamodeld/Notes 2.xcdatamodel"),
            ("destinationmodeldata", "binary", base64.b64encode(embedded_model(DESTINATION, "2")).decode())],
         [("entitymappings", "0/0", "XDDEVENTITYMAPPING", [folder, note])]),
        entity(folder, "Folder", 1, [110], [111]),
        entity(note, "Note", 2, [120, 121, 122], [123]),
        attribute(110, "name", folder), relationship(111, "notes", folder),
        attribute(120, "body", note, source_key_path("text")), attribute(121, "pinned", note), attribute(122, "title", note),
        relationship(123, "folder", note),
    ]


if __name__ == "__main__":
    package = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Examples", "MappingModelExample", "NotesV1toV2.xcmappingmodel")
    os.makedirs(package, exist_ok=True)
    with open(os.path.join(package, "xcmapping.xml"), "w") as out:
        out.write(xml_store(mapping_objects()))
