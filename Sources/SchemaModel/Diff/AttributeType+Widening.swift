extension AttributeType {
  /// True when every value of this type has an exact form in `to`: integer widenings,
  /// float to double, integers to double or decimal, and anything to string. `SchemaDiff`
  /// classifies such a change of type as needing no check of the stored values.
  func widens(to: AttributeType) -> Bool {
    if self == to || to == .string { return true }
    switch (self, to) {
    case (.int16, .int32), (.int16, .int64), (.int16, .int), (.int32, .int64), (.int32, .int), (.int, .int64), (.int64, .int):
      return true
    case (.float, .double), (.int16, .double), (.int32, .double), (.int, .double), (.int64, .double):
      return true
    case (.int16, .decimal), (.int32, .decimal), (.int, .decimal), (.int64, .decimal):
      return true
    default:
      return false
    }
  }
}
