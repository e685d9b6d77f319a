//! Edge kinds by use, and the structural edges read off declarations.

use super::check_m;

#[test]
fn a_function_value_is_a_callback_an_assignment_or_a_return() {
    check_m(
        r#"
//- m/p/p.go
package p

func handler() {}

func register(f func()) {}

func Use() func() {
	register(handler) //want: PASSES_AS_CALLBACK example.com/m/p:handler
	h := handler      //want: ASSIGNS_FUNCTION example.com/m/p:handler
	_ = h
	return handler    //want: RETURNS_FUNCTION example.com/m/p:handler
}
"#,
    );
}

#[test]
fn types_in_type_positions_and_conversions_are_type_uses() {
    check_m(
        r#"
//- m/p/p.go
package p

type Celsius float64

type Reading struct {
	Temp Celsius //want: TYPE_USES example.com/m/p:Celsius
}

func Convert(x float64) Celsius { //want: TYPE_USES example.com/m/p:Celsius
	return Celsius(x) //want: TYPE_USES example.com/m/p:Celsius
}
"#,
    );
}

// ---- structural edges ----

#[test]
fn methods_belong_to_their_receivers_type_unless_it_is_an_interface() {
    check_m(
        r#"
//- m/p/p.go
package p

type Shape interface {
	Area() int //want-none: Shape
}

type Square struct{}

func (s *Square) Area() int { return 0 } //want: METHOD_OF example.com/m/p:Square STRUCTURAL_CERTAIN GO_DECLARATION ; //want: TYPE_USES example.com/m/p:Square
"#,
    );
}

#[test]
fn an_embedded_field_embeds_its_type() {
    check_m(
        r#"
//- m/p/p.go
package p

type Base struct{}

type Derived struct {
	Base //want: EMBEDS example.com/m/p:Base STRUCTURAL_CERTAIN GO_DECLARATION
	*Other //want: EMBEDS example.com/m/p:Other STRUCTURAL_CERTAIN
}

type Other struct{}
"#,
    );
}

#[test]
fn a_type_implements_an_interface_whose_methods_it_has_with_the_same_signatures() {
    check_m(
        r#"
//- m/p/p.go
package p

type Shape interface {
	Area() int
}

type Square struct{} //want: IMPLEMENTS example.com/m/p:Shape STRUCTURAL_CERTAIN GO_DECLARATION

func (Square) Area() int { return 0 } //want: IMPLEMENTS example.com/m/p:Shape.Area STRUCTURAL_CERTAIN

type Wrong struct{} //want-none: Shape

func (Wrong) Area() float64 { return 0 }
"#,
    );
}
